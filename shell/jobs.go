package shell

import (
	"sort"
	"strconv"
	"sync"
	"time"
)

// Jobs is one session's table of jobs: scripts that outlived their call's
// time budget. A job keeps running, but a step of it that needs a yes is
// refused, because its call, where the user would be asked, is over. When
// a job ends, the table calls its settle function once. Close kills every
// job: no process of a session outlives it.
type Jobs struct {
	settle func(*Job)

	mu     sync.Mutex
	seq    int
	jobs   map[string]*Job
	closed bool
}

// Job is a script running past its call.
type Job struct {
	ID      string
	Command string
	Started time.Time // when the script started, not when it became a job
	Run     *Run
}

// JobInfo is what the jobs tool shows of a job.
type JobInfo struct {
	ID      string  `json:"id"`
	Command string  `json:"command"`
	State   string  `json:"state"` // "running", or how the script ended
	Status  int     `json:"status"`
	Seconds float64 `json:"seconds"` // how long it ran (so far), from its start
	Steps   []Step  `json:"steps"`
	Output  Output  `json:"output"`
	Refusal string  `json:"refusal,omitempty"`
}

// NewJobs makes a table; settle is called (in its own goroutine) when a
// job's script ends, killed or not. It may be nil.
func NewJobs(settle func(*Job)) *Jobs {
	return &Jobs{settle: settle, jobs: map[string]*Job{}}
}

// Add makes a running script a job. A closed table kills the script at once.
func (t *Jobs) Add(r *Run, command string) *Job {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		r.Kill()
		return &Job{ID: "closed", Command: command, Run: r, Started: time.Now()}
	}
	t.seq++
	j := &Job{ID: "job-" + strconv.Itoa(t.seq), Command: command, Started: r.Started(), Run: r}
	t.jobs[j.ID] = j
	t.mu.Unlock()
	go func() {
		<-r.Done()
		if t.settle != nil {
			t.settle(j)
		}
	}()
	return j
}

// Get finds a job by id.
func (t *Jobs) Get(id string) (*Job, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	j, ok := t.jobs[id]
	return j, ok
}

// List returns every job of the session, oldest first.
func (t *Jobs) List() []*Job {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*Job, 0, len(t.jobs))
	for _, j := range t.jobs {
		out = append(out, j)
	}
	sort.Slice(out, func(a, b int) bool {
		return out[a].Started.Before(out[b].Started) || out[a].Started.Equal(out[b].Started) && out[a].ID < out[b].ID
	})
	return out
}

// Close kills every job and refuses new ones; it returns when all are gone.
func (t *Jobs) Close() {
	t.mu.Lock()
	t.closed = true
	jobs := make([]*Job, 0, len(t.jobs))
	for _, j := range t.jobs {
		jobs = append(jobs, j)
	}
	t.mu.Unlock()
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Go(j.Run.Kill)
	}
	wg.Wait()
}

// Info returns the job's state, steps and bounded output now.
func (j *Job) Info() JobInfo {
	info := JobInfo{ID: j.ID, Command: j.Command, State: "running", Status: -1}
	select {
	case <-j.Run.Done():
	default:
		info.Steps, info.Output = j.Run.Progress()
		info.Seconds = time.Since(j.Started).Seconds()
		return info
	}
	res := j.Run.Result()
	info.State, info.Status, info.Steps, info.Output = string(res.End), res.Status, res.Steps, res.Output
	info.Seconds = j.Run.ended.Sub(j.Started).Seconds()
	if res.Refusal != nil {
		info.Refusal = endLine(res) // refused at a step, or bounded
	}
	return info
}
