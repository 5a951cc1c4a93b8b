package org.stormlab.instrument;

import java.util.Map;
import org.apache.storm.ISubmitterHook;
import org.apache.storm.generated.KillOptions;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.generated.TopologyInfo;
import org.apache.storm.utils.NimbusClient;

/**
 * Submitter hook set by {@link Instrumented} for a compiled user topology: the harness finds, measures
 * and kills the topology by the name the user gave ({@link #CONF_EXPECT_NAME}). If the main submitted
 * under another name, this hook kills what it submitted at once (so nothing is left running) and fails
 * the submission with a message naming both names.
 */
public class NameCheck implements ISubmitterHook {
    /** The name the harness expects the topology under. */
    public static final String CONF_EXPECT_NAME = "stormlab.expect.name";

    @Override
    public void notify(TopologyInfo info, Map<String, Object> conf, StormTopology topology) throws IllegalAccessException {
        Object want = conf.get(CONF_EXPECT_NAME);
        String got = info.get_name();
        if (want == null || want.toString().equals(got)) {
            return;
        }
        String killed = "killed it";
        try (NimbusClient c = NimbusClient.getConfiguredClient(conf)) {
            KillOptions opts = new KillOptions();
            opts.set_wait_secs(0);
            c.getClient().killTopologyWithOpts(got, opts);
        } catch (Exception e) {
            killed = "could not kill it (" + e + "): kill it yourself";
        }
        String msg = "the main submitted topology \"" + got + "\", not \"" + want + "\" (--name): " + killed
            + "; give --name " + got;
        System.err.println("stormlab: " + msg);
        throw new IllegalAccessException(msg);
    }
}
