package org.stormlab.bridge;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WarmupTest {
    /** A port nothing listens on (bound, read, released). */
    private static int deadPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void runsWithoutAService() throws Exception {
        String url = "http://127.0.0.1:" + deadPort() + "/v1/schedule";
        Warmup.run(new ServiceClient(URI.create(url), Duration.ofMillis(500)));
    }

    @Test
    void bridgeWarmsUpInTheBackgroundWithoutARound() throws Exception {
        Map<String, Object> c = new HashMap<>();
        c.put(BridgeScheduler.CONF_URL, "http://127.0.0.1:" + deadPort() + "/v1/schedule");
        c.put(BridgeScheduler.CONF_TIMEOUT_MS, 500);
        BridgeScheduler b = new BridgeScheduler();
        b.prepare(c, null);
        assertTrue(b.awaitWarmup(Duration.ofSeconds(120)), "warm-up did not end");
        assertNull(b.lastRound(), "the warm-up must not count as a round");
    }
}
