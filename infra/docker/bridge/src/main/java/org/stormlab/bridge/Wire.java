package org.stormlab.bridge;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;

/**
 * The JSON wire contract with the Go scheduler service, mirrored by hand from
 * infra/protocol/protocol.go (field names are the wire names; keep both in
 * step). Unknown fields are ignored so the service may add some.
 */
public final class Wire {
    private Wire() {
    }

    /** Shared mapper: ignores unknown properties, leaves out nulls. */
    public static final ObjectMapper MAPPER = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .setSerializationInclusion(JsonInclude.Include.NON_NULL);

    /** Storm's ExecutorDetails: tasks [start, end]. */
    public record Executor(@JsonProperty("start") int start, @JsonProperty("end") int end) {
    }

    public record ExecutorSlot(@JsonProperty("executor") Executor executor,
                               @JsonProperty("supervisor") String supervisor,
                               @JsonProperty("port") int port) {
    }

    /** An executor, its component, and the memory its component declares (on- and off-heap, Storm's defaults when undeclared). */
    public record ComponentExecutor(@JsonProperty("executor") Executor executor,
                                    @JsonProperty("component") String component,
                                    @JsonProperty("memory_mb") double memoryMb) {
    }

    public record Stream(@JsonProperty("from") String from,
                         @JsonProperty("to") String to,
                         @JsonProperty("grouping") String grouping) {
    }

    public record Topology(@JsonProperty("id") String id,
                           @JsonProperty("name") String name,
                           @JsonProperty("num_workers") int numWorkers,
                           @JsonProperty("executors") List<ComponentExecutor> executors,
                           @JsonProperty("streams") List<Stream> streams,
                           @JsonProperty("assignment") List<ExecutorSlot> assignment,
                           @JsonProperty("needs_scheduling") boolean needsScheduling) {
    }

    public record Supervisor(@JsonProperty("id") String id,
                             @JsonProperty("host") String host,
                             @JsonProperty("cpu") double cpu,
                             @JsonProperty("memory_mb") double memoryMb,
                             @JsonProperty("ports") List<Integer> ports,
                             @JsonProperty("free_ports") List<Integer> freePorts,
                             @JsonProperty("meta") Map<String, String> meta) {
    }

    public record Snapshot(@JsonProperty("time_ms") long timeMs,
                           @JsonProperty("topologies") List<Topology> topologies,
                           @JsonProperty("supervisors") List<Supervisor> supervisors,
                           @JsonProperty("prev_round_ms") double prevRoundMs) {
    }

    public record WorkerAssignment(@JsonProperty("supervisor") String supervisor,
                                   @JsonProperty("port") int port,
                                   @JsonProperty("executors") List<Executor> executors) {
    }

    public record TopologyDecision(@JsonProperty("id") String id,
                                   @JsonProperty("workers") List<WorkerAssignment> workers) {
    }

    public record TopologyError(@JsonProperty("id") String id, @JsonProperty("error") String error) {
    }

    public record Decision(@JsonProperty("scheduler") String scheduler,
                           @JsonProperty("topologies") List<TopologyDecision> topologies,
                           @JsonProperty("errors") List<TopologyError> errors) {
    }

    public record Fallback(@JsonProperty("time_ms") long timeMs,
                           @JsonProperty("topology") String topology,
                           @JsonProperty("reason") String reason) {
    }
}
