package org.stormlab.topologies;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Parsing a captured topology file. Reference figures are the hand-written fixture
 * topologies/testdata/replay-small.json (source x2 -> work x2 -> sink x1, 200 tuples/s; 300 µs of CPU per tuple), which
 * the Go side's cluster test replays too.
 */
class ReplayGraphTest {
    static final Path SMALL = Path.of("..", "testdata", "replay-small.json");

    static String small() throws IOException {
        return Files.readString(SMALL);
    }

    @Test
    void parsesTheFixture() throws IOException {
        ReplayGraph g = ReplayGraph.parse(small());
        assertEquals("replay-small", g.topology);
        assertEquals(3, g.components.size());
        assertEquals(2, g.workers); // sup1:6700 and sup2:6700
        ReplayGraph.Component source = g.component("source");
        assertTrue(source.spout);
        assertEquals(2, source.parallelism);
        assertEquals(300, source.cpuUsPerTuple, 0);
        assertEquals(200, g.spoutRate("source"), 0);
        assertEquals(200, g.inRate("work"), 0);
        List<ReplayGraph.Output> out = g.outputs("work");
        assertEquals(1, out.size());
        assertEquals("default", out.get(0).stream);
        assertEquals(200, out.get(0).perS, 0);
        assertEquals(80, out.get(0).bytes, 0);
        assertEquals(ReplayGraph.Grouping.FIELDS, g.inputs("sink").get(0).grouping);
        assertTrue(g.outputs("sink").isEmpty());
        assertTrue(g.warnings().isEmpty(), g.warnings().toString());
    }

    /** Derived rates: all-grouped copies, several streams, missing sizes and execute rates. */
    @Test
    void derivedRates() {
        String json = "{\"format\":1,\"components\":["
            + "{\"name\":\"s\",\"kind\":\"spout\",\"parallelism\":1,\"emit_per_s\":0,\"tuple_bytes\":0},"
            + "{\"name\":\"a\",\"kind\":\"bolt\",\"parallelism\":4,\"execute_per_s\":0,\"tuple_bytes\":50},"
            + "{\"name\":\"b\",\"kind\":\"bolt\",\"parallelism\":2}],"
            + "\"streams\":["
            + "{\"from\":\"s\",\"to\":\"a\",\"stream\":\"default\",\"grouping\":\"shuffle\",\"tuples_per_s\":100},"
            + "{\"from\":\"s\",\"to\":\"b\",\"stream\":\"side\",\"grouping\":\"custom\",\"tuples_per_s\":25},"
            + "{\"from\":\"a\",\"to\":\"b\",\"stream\":\"bcast\",\"grouping\":\"all\",\"tuples_per_s\":40}]}";
        ReplayGraph g = ReplayGraph.parse(json);
        // emit_per_s 0: the spout offers the sum of its streams, 100 + 25.
        assertEquals(125, g.spoutRate("s"), 1e-9);
        // execute_per_s 0: a executes what its subscriptions carry.
        assertEquals(100, g.inRate("a"), 1e-9);
        // a emits 40 tuples/s on bcast (a stream's rate is its source's emit rate)...
        List<ReplayGraph.Output> out = g.outputs("a");
        assertEquals(40, out.get(0).perS, 1e-9);
        // ...and b's 2 tasks each execute all of them (all grouping), besides s's 25 on side: 2 * 40 + 25.
        assertEquals(105, g.inRate("b"), 1e-9);
        assertEquals(50, out.get(0).bytes, 0); // the component's tuple_bytes
        assertEquals(ReplayGraph.DEFAULT_TUPLE_BYTES, g.outputs("s").get(0).bytes, 0);
        assertEquals(List.of("default", "side"), g.outputs("s").stream().map(o -> o.stream).toList());
        assertEquals(0, g.workers);
        List<String> w = g.warnings();
        assertEquals(1, w.size());
        assertTrue(w.get(0).contains("\"custom\"") && w.get(0).contains("shuffle"), w.get(0));
    }

    @Test
    void groupings() {
        assertEquals(ReplayGraph.Grouping.LOCAL_OR_SHUFFLE, ReplayGraph.grouping("local_or_shuffle"));
        assertEquals(ReplayGraph.Grouping.GLOBAL, ReplayGraph.grouping("global"));
        assertEquals(ReplayGraph.Grouping.NONE, ReplayGraph.grouping("none"));
        for (String g : new String[] {"direct", "custom", "partial_key", ""}) {
            assertEquals(ReplayGraph.Grouping.SHUFFLE, ReplayGraph.grouping(g), g);
        }
    }

    /** Bad files: each error names the problem. */
    @Test
    void refusesBadFiles() throws IOException {
        String ok = small();
        String[][] cases = {
            {"{not json", "not valid JSON"},
            {"[1, 2]", "not a JSON object"},
            {ok.replace("\"format\": 1", "\"format\": 2"), "format 2 is newer than this stormlab reads (1): upgrade stormlab"},
            {"{\"vertices\":[{\"id\":0,\"weight\":1}],\"edges\":[]}", "capture one with stormlab capture"},
            {"{\"components\":[],\"streams\":[]}", "capture one with stormlab capture"},
            {ok.replace("\"parallelism\": 1", "\"parallelism\": 0"), "component \"sink\" has parallelism 0: it must be a whole number >= 1"},
            {ok.replace("\"emit_per_s\": 200, \"execute_per_s\": 0", "\"emit_per_s\": 0, \"execute_per_s\": 0")
                .replace("\"tuples_per_s\": 200, \"bytes_per_tuple\": 100", "\"tuples_per_s\": 0, \"bytes_per_tuple\": 100"),
                "every spout of the captured topology emits 0 tuples/s"},
            {ok.replace("\"to\": \"sink\"", "\"to\": \"nowhere\""), "ends at unknown component \"nowhere\""},
            {ok.replace("\"to\": \"work\"", "\"to\": \"source\""), "only bolts subscribe"},
            {ok.replace("\"kind\": \"spout\"", "\"kind\": \"bolt\""), "no spout"},
            {ok.replace("\"cpu_us_per_tuple\": 300, \"tuple_bytes\": 80", "\"cpu_us_per_tuple\": -1, \"tuple_bytes\": 80"),
                "cpu_us_per_tuple -1: it must be finite and >= 0"},
        };
        for (String[] c : cases) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ReplayGraph.parse(c[0]), c[1]);
            assertTrue(e.getMessage().contains(c[1]), "want \"" + c[1] + "\" in: " + e.getMessage());
        }
    }
}
