package org.stormlab.instrument;

import java.io.Serializable;

/**
 * The message id of an open-loop spout tuple: its sequence number and its send lag (actual emit time
 * minus intended send time, µs). The hook adds the lag to Storm's complete latency on ack, which gives
 * the complete latency from the intended send time. Message ids stay in the spout's worker (Storm
 * keeps them in the spout executor's pending map), so this costs no bytes on the wire.
 */
public final class IntendedId implements Serializable {
    private static final long serialVersionUID = 1L;

    public final long seq;
    public final long lagUs;

    public IntendedId(long seq, long lagUs) {
        this.seq = seq;
        this.lagUs = lagUs;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IntendedId && ((IntendedId) o).seq == seq && ((IntendedId) o).lagUs == lagUs;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(seq) * 31 + Long.hashCode(lagUs);
    }

    @Override
    public String toString() {
        return "IntendedId{seq=" + seq + ", lagUs=" + lagUs + "}";
    }
}
