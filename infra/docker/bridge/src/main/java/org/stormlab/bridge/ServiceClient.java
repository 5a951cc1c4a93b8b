package org.stormlab.bridge;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * HTTP client of the Go scheduler service, JSON via Jackson: rounds use a
 * blocking HttpURLConnection (see {@link #post}), fallback reports
 * java.net.http so they never wait.
 */
public final class ServiceClient {
    private final HttpClient http;
    private final URI schedule;
    private final URI fallback;
    private final Duration timeout;
    private final String authorization; // "Bearer <token>", or null

    public ServiceClient(URI schedule, Duration timeout) {
        this(schedule, timeout, null);
    }

    /** token, when not blank, is sent as {@code Authorization: Bearer <token>} with every request. */
    public ServiceClient(URI schedule, Duration timeout, String token) {
        this.authorization = token == null || token.isBlank() ? null : "Bearer " + token.strip();
        this.schedule = schedule;
        this.fallback = schedule.resolve("/v1/fallback");
        this.timeout = timeout;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(timeout)
                .build();
    }

    public URI scheduleUri() {
        return schedule;
    }

    /** POSTs the snapshot and returns the decision; any failure is an IOException naming it. */
    public Wire.Decision ask(Wire.Snapshot snap) throws IOException, InterruptedException {
        return decode(post(encode(snap)));
    }

    /** The snapshot as JSON. */
    public byte[] encode(Wire.Snapshot snap) throws IOException {
        return Wire.MAPPER.writeValueAsBytes(snap);
    }

    /**
     * POSTs a JSON snapshot and returns the answer's body; an answer other
     * than 200 is an IOException. Blocking HttpURLConnection on the calling
     * thread rather than java.net.http: the latter hands each request to
     * its selector thread and the answer back through an executor, which on
     * a loaded machine cost 15-20 ms a round in thread wake-ups against
     * 5-12 ms here (BridgeRoundTimeTest, 1,000 executors, medians). The
     * timeout bounds the connect and each read. Idle connections are kept
     * by the JDK's keep-alive cache; the body is buffered (no streaming
     * mode) so the JDK can resend it once when a cached connection has gone.
     */
    public byte[] post(byte[] body) throws IOException, InterruptedException {
        HttpURLConnection c = (HttpURLConnection) schedule.toURL().openConnection();
        c.setConnectTimeout(millis());
        c.setReadTimeout(millis());
        c.setRequestMethod("POST");
        c.setDoOutput(true);
        c.setRequestProperty("Content-Type", "application/json");
        auth(c);
        try (OutputStream out = c.getOutputStream()) {
            out.write(body);
        }
        int code = c.getResponseCode();
        if (code != 200) {
            InputStream err = c.getErrorStream();
            byte[] text = new byte[0];
            if (err != null) {
                try (err) {
                    text = err.readAllBytes();
                }
            }
            throw status(code, text);
        }
        try (InputStream in = c.getInputStream()) {
            return in.readAllBytes();
        }
    }

    private void auth(HttpURLConnection c) {
        if (authorization != null) {
            c.setRequestProperty("Authorization", authorization);
        }
    }

    private int millis() {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
    }

    private static IOException status(int code, byte[] body) {
        String text = new String(body, java.nio.charset.StandardCharsets.UTF_8);
        if (text.length() > 300) {
            text = text.substring(0, 300) + "...";
        }
        return new IOException("service answered HTTP " + code + ": " + text.strip());
    }

    /** Reads a decision from the service's answer. */
    public static Wire.Decision decode(byte[] body) throws IOException {
        try {
            Wire.Decision d = Wire.MAPPER.readValue(body, Wire.Decision.class);
            if (d == null) {
                throw new IOException("service answered an empty decision");
            }
            return d;
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            throw new IOException("service answered invalid JSON: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * GET /v1/health, then POST to it (the service answers 405 and records
     * nothing), answers ignored: loads the classes a round's POST uses and
     * leaves a connection in the keep-alive cache. Failures are ignored (a
     * service not up yet).
     */
    public void touch() {
        URI health = schedule.resolve("/v1/health");
        try {
            HttpURLConnection c = (HttpURLConnection) health.toURL().openConnection();
            c.setConnectTimeout(millis());
            c.setReadTimeout(millis());
            auth(c);
            drain(c);
            c = (HttpURLConnection) health.toURL().openConnection();
            c.setConnectTimeout(millis());
            c.setReadTimeout(millis());
            c.setRequestMethod("POST");
            c.setDoOutput(true);
            c.setRequestProperty("Content-Type", "application/json");
            auth(c);
            try (OutputStream out = c.getOutputStream()) {
                out.write("{}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            drain(c);
        } catch (IOException | RuntimeException e) {
            // not up yet: the first round opens the connection
        }
    }

    private static void drain(HttpURLConnection c) throws IOException {
        try (InputStream in = c.getResponseCode() == 200 ? c.getInputStream() : c.getErrorStream()) {
            if (in != null) {
                in.readAllBytes();
            }
        }
    }

    /** Reports a fallback without waiting; failures are ignored (the Nimbus log has the record). */
    public void reportFallback(Wire.Fallback f) {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(fallback)
                    .timeout(timeout)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(Wire.MAPPER.writeValueAsBytes(f)));
            if (authorization != null) {
                b.header("Authorization", authorization);
            }
            HttpRequest req = b.build();
            http.sendAsync(req, HttpResponse.BodyHandlers.discarding());
        } catch (Exception e) {
            // best effort
        }
    }
}
