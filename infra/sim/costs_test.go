package sim

import (
	"bytes"
	"strings"
	"testing"
)

// TestReadCostModelIntervals: a stated interval must hold its figure and not go below zero; one that
// does not is refused naming the cost, and a model without intervals still reads.
func TestReadCostModelIntervals(t *testing.T) {
	for _, c := range []struct {
		name string
		ci   *Interval
		want string // "" reads
	}{
		{"none", nil, ""},
		{"holds", &Interval{Lo: 8, Hi: 12}, ""},
		{"misses", &Interval{Lo: 11, Hi: 12}, "cpu_us_pi95"},
		{"negative", &Interval{Lo: -1, Hi: 12}, "cpu_us_pi95"},
	} {
		m := &CostModel{Format: CostFormat, Name: "t", Topologies: map[string]TopologyCosts{
			"Main": {Components: map[string]ComponentCost{"bolt": {CPUMicros: 10, CPUMicrosPI: c.ci}}}}}
		got, err := throughFile(t, m)
		if readAsWanted(t, c.name, err, c.want) && (got.Topologies["Main"].Components["bolt"].CPUMicrosPI == nil) != (c.ci == nil) {
			t.Errorf("%s: interval %+v did not survive the file", c.name, got.Topologies["Main"].Components["bolt"].CPUMicrosPI)
		}
	}
}

// TestReadCostModelMessaging: a model's messaging-thread costs and the executors' wake-up read into
// Costs, and frame costs without messaging_threads, or below zero, are refused naming the fields.
func TestReadCostModelMessaging(t *testing.T) {
	for _, c := range []struct {
		name string
		tr   TransferCosts
		want string // "" reads
	}{
		{"none", TransferCosts{}, ""},
		{"threads", TransferCosts{MessagingThreads: true, SendFrameS: 4e-5, SendMsgS: 1e-6, RecvFrameS: 3e-5, SendWakeS: 2e-5, RecvWakeS: 5e-5}, ""},
		{"costs without threads", TransferCosts{SendFrameS: 4e-5}, "messaging_threads"},
		{"wake-ups without threads", TransferCosts{RecvWakeS: 4e-5}, "messaging_threads"},
		{"negative", TransferCosts{MessagingThreads: true, RecvFrameS: -1}, "recv_frame_s"},
		{"negative wake-up", TransferCosts{MessagingThreads: true, SendWakeS: -1}, "send_wake_s"},
		{"executors' wake-up, threads or not", TransferCosts{ExecWakeS: 5e-5}, ""},
		{"negative executors' wake-up", TransferCosts{ExecWakeS: -1}, "exec_wake_s"},
	} {
		m := &CostModel{Format: CostFormat, Name: "t", Transfer: c.tr, Topologies: map[string]TopologyCosts{
			"Main": {Components: map[string]ComponentCost{"bolt": {CPUMicros: 10}}}}}
		got, err := throughFile(t, m)
		if !readAsWanted(t, c.name, err, c.want) {
			continue
		}
		k := got.Transfer.Costs()
		if k.SendFrame != c.tr.SendFrameS || k.SendMsg != c.tr.SendMsgS || k.RecvFrame != c.tr.RecvFrameS || k.SendWake != c.tr.SendWakeS ||
			k.RecvWake != c.tr.RecvWakeS || k.ExecWake != c.tr.ExecWakeS || got.Transfer.MessagingThreads != c.tr.MessagingThreads {
			t.Errorf("%s: %+v read as %+v", c.name, c.tr, k)
		}
	}
}

// throughFile writes m as its file and reads it back, as a user's cost-model file is read.
func throughFile(t *testing.T, m *CostModel) (*CostModel, error) {
	t.Helper()
	var b bytes.Buffer
	if err := WriteCostModel(&b, m); err != nil {
		t.Fatal(err)
	}
	return ReadCostModel(&b)
}

// readAsWanted checks a file's read against want ("": it reads; else an error naming want) and reports
// whether it read, as wanted, so that the caller checks what it read.
func readAsWanted(t *testing.T, name string, err error, want string) bool {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: %v", name, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%s: %v, want an error naming %s", name, err, want)
	}
	return want == "" && err == nil
}
