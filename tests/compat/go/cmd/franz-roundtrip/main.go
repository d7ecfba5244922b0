// franz-roundtrip runs one phase of the compat scenario with twmb/franz-go: produce keyed
// records with ProduceSync (acks=all, franz-go's default idempotent producer), or consume
// them in a classic consumer group (kgo.ConsumerGroup), commit them with CommitRecords and
// leave the group on Close. See internal/scenario for the command line and the output.
package main

import (
	"context"
	"errors"
	"os"

	"github.com/twmb/franz-go/pkg/kgo"

	"pylog.dev/compat/clients/internal/scenario"
)

func main() {
	a := scenario.Parse()
	if a.Phase == "produce" {
		produce(a)
	} else {
		consume(a)
	}
}

// options are the options every client of this program has
func options(a scenario.Args, more ...kgo.Opt) []kgo.Opt {
	opts := []kgo.Opt{kgo.SeedBrokers(a.Brokers), kgo.ClientID("franz-roundtrip")}
	if a.Debug {
		opts = append(opts, kgo.WithLogger(kgo.BasicLogger(os.Stderr, kgo.LogLevelDebug, nil)))
	}
	return append(opts, more...)
}

func produce(a scenario.Args) {
	// franz-go does not ask for auto-creation unless told to; the scenario lets the broker
	// create the topic on first use, as the other clients do.
	client, err := kgo.NewClient(options(a, kgo.AllowAutoTopicCreation(), kgo.RequiredAcks(kgo.AllISRAcks()))...)
	if err != nil {
		scenario.Fail("new client: %v", err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), a.Timeout)
	defer cancel()
	records := make([]*kgo.Record, a.Count)
	for i := range records {
		n := a.First + i
		records[i] = &kgo.Record{Topic: a.Topic, Key: []byte(scenario.Key(n)), Value: []byte(scenario.Value(n))}
	}
	results := client.ProduceSync(ctx, records...)
	if err := results.FirstErr(); err != nil {
		scenario.Fail("produce: %v", err)
	}
	for _, r := range results {
		scenario.Emit(scenario.Record{Event: "produced", Key: string(r.Record.Key), Value: string(r.Record.Value),
			Partition: r.Record.Partition, Offset: r.Record.Offset})
	}
	scenario.Done(a, len(results))
}

func consume(a scenario.Args) {
	client, err := kgo.NewClient(options(a,
		kgo.ConsumerGroup(a.Group), kgo.ConsumeTopics(a.Topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), // a group without a committed offset starts at the earliest
		kgo.DisableAutoCommit())...)                       // committed by hand, once, after `count` records
	if err != nil {
		scenario.Fail("new client: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), a.Timeout)
	defer cancel()
	var records []*kgo.Record
	for len(records) < a.Count {
		fetches := client.PollFetches(ctx)
		if ctx.Err() != nil {
			client.Close()
			scenario.Fail("read %d of %d records in %v", len(records), a.Count, a.Timeout)
		}
		for _, e := range fetches.Errors() {
			if !errors.Is(e.Err, context.DeadlineExceeded) {
				scenario.Fail("fetch %s-%d: %v", e.Topic, e.Partition, e.Err)
			}
		}
		fetches.EachRecord(func(r *kgo.Record) {
			if len(records) < a.Count {
				records = append(records, r)
			}
		})
	}
	// OffsetCommit of each partition's last record + 1, synchronously
	if err := client.CommitRecords(ctx, records...); err != nil {
		scenario.Fail("commit: %v", err)
	}
	client.Close() // LeaveGroup
	for _, r := range records {
		scenario.Emit(scenario.Record{Event: "consumed", Key: string(r.Key), Value: string(r.Value),
			Partition: r.Partition, Offset: r.Offset})
	}
	scenario.Done(a, len(records))
}
