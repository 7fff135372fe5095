package stream_test

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/llmsla/llmsla/harness/lateness"
	"github.com/llmsla/llmsla/harness/stats"
)

// machineLoad is what the machine did while a timing test ran: the CPU
// used by other processes (from /proc/stat less this process's own time),
// the share stolen by the hypervisor, and how late a timer in this process
// woke (the lateness probe), the delay any reading of a chunk can suffer
// from the scheduler.
type machineLoad struct {
	measured bool    // /proc was there to read
	outside  float64 // cores used by other processes, on average
	steal    float64 // share of CPU time stolen, 0–1
	lateP50  float64 // ms, median of the timer's lateness
	lateP90  float64 // ms, p90 of the timer's lateness
	lateP99  float64 // ms, p99 of the timer's lateness

	start cpuTimes
	probe *lateness.Probe
}

// busy: the run shared the machine with at least half a core of other
// work, or lost 5% of it to the hypervisor, or the process's own timers
// woke 2 ms late at p99 (its own work filled the cores: 50 embeddings
// streams of 1,536-dimension vectors, encoded and decoded in one process,
// had them 3.2 ms late with no other process running). Only then may a
// timing test be excused a retry or a wider bound.
func (m *machineLoad) busy() bool {
	return m.measured && (m.outside >= 0.5 || m.steal >= 0.05) || m.lateP99 >= 2
}

func (m *machineLoad) String() string {
	if !m.measured {
		return fmt.Sprintf("machine load not measured (no /proc); timer lateness p50 %.3f p90 %.3f p99 %.3f ms", m.lateP50, m.lateP90, m.lateP99)
	}
	return fmt.Sprintf("other processes %.2f cores, steal %.1f%%, timer lateness p50 %.3f p90 %.3f p99 %.3f ms (busy: %v)",
		m.outside, 100*m.steal, m.lateP50, m.lateP90, m.lateP99, m.busy())
}

func startMachineLoad() *machineLoad {
	m := &machineLoad{}
	m.start, m.measured = readCPUTimes()
	m.probe = lateness.Start()
	return m
}

func (m *machineLoad) stop() *machineLoad {
	late := m.probe.Stop()
	m.lateP50, m.lateP90, m.lateP99 = stats.Ms(late.P50), stats.Ms(late.P90), stats.Ms(late.P99)
	end, ok := readCPUTimes()
	m.measured = m.measured && ok
	if total := end.total - m.start.total; m.measured && total > 0 {
		own := end.self - m.start.self
		m.outside = max(0, end.busy-m.start.busy-own) / total * float64(runtime.NumCPU())
		m.steal = (end.steal - m.start.steal) / total
	}
	return m
}

// cpuTimes are clock ticks: of all CPUs (busy, all, stolen) and of this
// process (user and system).
type cpuTimes struct{ busy, total, steal, self float64 }

func readCPUTimes() (cpuTimes, bool) {
	var c cpuTimes
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return c, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal …
	if len(f) < 9 || f[0] != "cpu" {
		return c, false
	}
	v := make([]float64, 8)
	for i := range v {
		v[i], _ = strconv.ParseFloat(f[i+1], 64)
		c.total += v[i]
	}
	c.busy = v[0] + v[1] + v[2] + v[5] + v[6]
	c.steal = v[7]
	self, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return c, false
	}
	s := string(self)
	fs := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // state ppid … utime(12) stime(13)
	if len(fs) < 13 {
		return c, false
	}
	ut, _ := strconv.ParseFloat(fs[11], 64)
	st, _ := strconv.ParseFloat(fs[12], 64)
	c.self = ut + st
	return c, true
}
