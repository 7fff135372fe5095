package sample

import "fmt"

// MaxSteps bounds an agent loop: the most model calls one loop may make
// (a case's max_steps), and the highest step a samples file may hold.
const MaxSteps = 100

// checkSteps: a step is a step of a loop (it has a Session), counted from
// 1, at most MaxSteps.
func (s *Sample) checkSteps() error {
	switch {
	case s.Step < 0 || s.Step > MaxSteps:
		return fmt.Errorf("step: %d is out of range (allowed: 1 to %d, or none)", s.Step, MaxSteps)
	case s.Step > 0 && s.Session == "":
		return fmt.Errorf("step: %d without a session (allowed: a step of an agent loop, which names its session)", s.Step)
	}
	return nil
}
