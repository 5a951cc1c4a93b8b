package org.stormlab.topologies;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.storm.Config;
import org.junit.jupiter.api.Test;
import org.stormlab.instrument.Instrument;

/** --instrumentation on|off: the hook is registered or not; Storm's stats sample rate is 1.0 either way. */
class InstrumentationSwitchTest {
    private static Config conf(String... argv) {
        return TopologySetup.config(ThroughputTopology.flags().parse(argv));
    }

    @Test
    void onByDefault() {
        Config c = conf();
        assertTrue(((List<?>) c.get(Config.TOPOLOGY_AUTO_TASK_HOOKS)).contains(Instrument.HOOK_CLASS));
        assertEquals(1.0, c.get(Config.TOPOLOGY_STATS_SAMPLE_RATE));
        assertEquals("on", c.get(Instrument.CONF_INSTRUMENTATION));
    }

    @Test
    void offLeavesNoHookButTheSameStats() {
        Config c = conf("--instrumentation", "off");
        Object hooks = c.get(Config.TOPOLOGY_AUTO_TASK_HOOKS);
        assertFalse(hooks instanceof List && ((List<?>) hooks).contains(Instrument.HOOK_CLASS), "hooks: " + hooks);
        assertEquals(1.0, c.get(Config.TOPOLOGY_STATS_SAMPLE_RATE));
        assertEquals("off", c.get(Instrument.CONF_INSTRUMENTATION));
    }

    @Test
    void badValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> conf("--instrumentation", "maybe"));
        assertTrue(e.getMessage().contains("use on or off"), e.getMessage());
    }
}
