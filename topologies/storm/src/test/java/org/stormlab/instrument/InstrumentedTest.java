package org.stormlab.instrument;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.utils.Utils;
import org.junit.jupiter.api.Test;

class InstrumentedTest {

    /**
     * The storm.options the wrapper sets reads back through Storm's own parser (the one StormSubmitter
     * merges over a topology's conf) as the hook list (the kept hook first, ours after), the sample rate,
     * the reporter's URL and interval, and a --conf value holding a comma and brackets intact.
     */
    @Test
    void stormOptionsReadBackByStorm() {
        Instrumented.Parsed p = Instrumented.parse(new String[] {"--main", "x.Main", "--arg", "a b", "--keep-hook", "u.Hook",
            "--metrics-url", "http://svc:7070/v1/metrics", "--report-interval-secs", "2", "--conf", "my.list=[\"p,q\",\"r\"]",
            "--arg", "--flag"});
        assertEquals("x.Main", p.main);
        assertEquals(List.of("a b", "--flag"), p.args);
        String old = System.getProperty("storm.options");
        try {
            System.setProperty("storm.options", Instrumented.stormOptions(p.conf));
            Map<String, Object> back = Utils.readCommandLineOpts();
            assertEquals(List.of("u.Hook", Instrument.HOOK_CLASS), back.get(Config.TOPOLOGY_AUTO_TASK_HOOKS));
            assertEquals(1.0, ((Number) back.get(Config.TOPOLOGY_STATS_SAMPLE_RATE)).doubleValue());
            assertEquals("http://svc:7070/v1/metrics", back.get(Instrument.CONF_METRICS_URL));
            assertEquals(2L, ((Number) back.get(Instrument.CONF_REPORT_INTERVAL_SECS)).longValue());
            assertEquals(List.of("p,q", "r"), back.get("my.list"));
        } finally {
            if (old == null) {
                System.clearProperty("storm.options");
            } else {
                System.setProperty("storm.options", old);
            }
        }
    }

    @Test
    void badFlags() {
        assertThrows(IllegalArgumentException.class, () -> Instrumented.parse(new String[] {"--arg", "x"}));
        assertThrows(IllegalArgumentException.class, () -> Instrumented.parse(new String[] {"--main"}));
        assertThrows(IllegalArgumentException.class, () -> Instrumented.parse(new String[] {"--main", "M", "--bogus", "1"}));
        assertThrows(IllegalArgumentException.class, () -> Instrumented.parse(new String[] {"--main", "M", "--conf", "novalue"}));
    }
}
