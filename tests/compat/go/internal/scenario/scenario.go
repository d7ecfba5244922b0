// Package scenario holds what the Go round-trip programs share: their command line and
// the JSON lines they print for tests/compat/test_clients.py.
//
// Every program runs one phase of the scenario per invocation:
//
//	-phase produce: send records key-F..key-(F+count-1) with values value-F..., wait for
//	                every ack, print one "produced" line per record (partition, offset).
//	-phase consume: join group -group on -topic (reset to the earliest offset when the
//	                group has no committed offset), read -count records, commit them,
//	                print one "consumed" line per record, then leave the group.
//
// The last line is {"event":"done",...}; errors go to stderr with a non-zero exit. With
// -debug the client library logs on stderr (for looking into a failure by hand).
package scenario

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"
)

// Args is the command line of a round-trip program.
type Args struct {
	Brokers string
	Topic   string
	Group   string
	Phase   string
	Count   int
	First   int
	Timeout time.Duration
	Debug   bool // the client library's own log on stderr
}

// Parse reads the command line; it exits with status 2 on a bad one.
func Parse() Args {
	var a Args
	flag.StringVar(&a.Brokers, "brokers", "", "bootstrap address host:port")
	flag.StringVar(&a.Topic, "topic", "", "topic")
	flag.StringVar(&a.Group, "group", "", "consumer group (phase consume)")
	flag.StringVar(&a.Phase, "phase", "", "produce or consume")
	flag.IntVar(&a.Count, "count", 0, "records to produce or to consume")
	flag.IntVar(&a.First, "first", 0, "index of the first record produced (key-<first>)")
	flag.BoolVar(&a.Debug, "debug", false, "print the client library's own log on stderr")
	timeout := flag.Float64("timeout-s", 45, "give up after this many seconds")
	flag.Parse()
	a.Timeout = time.Duration(*timeout * float64(time.Second))
	if a.Brokers == "" || a.Topic == "" || a.Count <= 0 ||
		(a.Phase != "produce" && a.Phase != "consume") || (a.Phase == "consume" && a.Group == "") {
		flag.Usage()
		os.Exit(2)
	}
	return a
}

// Key and Value of the record with index i.
func Key(i int) string   { return fmt.Sprintf("key-%d", i) }
func Value(i int) string { return fmt.Sprintf("value-%d", i) }

// Record is one line of output about one record.
type Record struct {
	Event     string `json:"event"` // "produced" or "consumed"
	Key       string `json:"key"`
	Value     string `json:"value"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
}

// Emit prints v as one JSON line on stdout.
func Emit(v any) {
	line, err := json.Marshal(v)
	if err != nil {
		Fail("encoding output: %v", err)
	}
	fmt.Println(string(line))
}

// Done prints the closing line of a phase.
func Done(a Args, count int) {
	Emit(map[string]any{"event": "done", "phase": a.Phase, "count": count})
}

// Fail prints the error on stderr and exits with status 1.
func Fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "error: "+format+"\n", args...)
	os.Exit(1)
}
