package lab

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// HostInfo describes the machine a result folder was measured on.
type HostInfo struct {
	CPUModel      string `json:"cpu_model,omitempty"`
	Cores         int    `json:"cores"`
	MemoryMB      int    `json:"memory_mb,omitempty"`
	Kernel        string `json:"kernel,omitempty"`
	OS            string `json:"os"`
	DockerVersion string `json:"docker_version,omitempty"` // empty when no engine answered
}

// hostInfo reads /proc (Linux) and asks the Docker CLI for the engine's
// version with a short timeout; whatever is not available stays empty.
func hostInfo(ctx context.Context) HostInfo {
	h := HostInfo{Cores: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				h.CPUModel = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if fs := strings.Fields(sc.Text()); len(fs) >= 2 && fs[0] == "MemTotal:" {
				if kb, err := strconv.Atoi(fs[1]); err == nil {
					h.MemoryMB = kb / 1024
				}
				break
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "docker", "version", "--format", "{{.Server.Version}}").Output(); err == nil {
		h.DockerVersion = strings.TrimSpace(string(out))
	}
	return h
}
