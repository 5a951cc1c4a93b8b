package org.stormlab.bridge;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** HTTP client of the Go scheduler service (java.net.http, JSON via Jackson). */
public final class ServiceClient {
    private final HttpClient http;
    private final URI schedule;
    private final URI fallback;
    private final Duration timeout;

    public ServiceClient(URI schedule, Duration timeout) {
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

    /** POSTs a JSON snapshot and returns the answer's body; an answer other than 200 is an IOException. */
    public byte[] post(byte[] body) throws IOException, InterruptedException {
        HttpRequest req = HttpRequest.newBuilder(schedule)
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        HttpResponse<byte[]> resp = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
        if (resp.statusCode() != 200) {
            String text = new String(resp.body(), java.nio.charset.StandardCharsets.UTF_8);
            if (text.length() > 300) {
                text = text.substring(0, 300) + "...";
            }
            throw new IOException("service answered HTTP " + resp.statusCode() + ": " + text.strip());
        }
        return resp.body();
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
     * GET /v1/health, answer ignored: opens the connection that the next POST
     * reuses and loads java.net.http's classes. Failures are ignored (a
     * service not up yet).
     */
    public void touch() {
        try {
            HttpRequest req = HttpRequest.newBuilder(schedule.resolve("/v1/health")).timeout(timeout).GET().build();
            http.send(req, HttpResponse.BodyHandlers.ofByteArray());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // not up yet: the first round opens the connection
        }
    }

    /** Reports a fallback without waiting; failures are ignored (the Nimbus log has the record). */
    public void reportFallback(Wire.Fallback f) {
        try {
            HttpRequest req = HttpRequest.newBuilder(fallback)
                    .timeout(timeout)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(Wire.MAPPER.writeValueAsBytes(f)))
                    .build();
            http.sendAsync(req, HttpResponse.BodyHandlers.discarding());
        } catch (Exception e) {
            // best effort
        }
    }
}
