// sarama-roundtrip runs one phase of the compat scenario with IBM/sarama: produce keyed
// records with a SyncProducer (acks=all), or consume them in a consumer group
// (sarama.ConsumerGroup), commit, and leave. See internal/scenario for the command line
// and the output.
package main

import (
	"context"
	"errors"
	"log"
	"os"
	"sync"

	"github.com/IBM/sarama"

	"pylog.dev/compat/clients/internal/scenario"
)

func config() *sarama.Config {
	c := sarama.NewConfig()
	c.ClientID = "sarama-roundtrip"
	// Sarama does not take its request versions from the broker alone: Config.Version caps
	// them (they are then clamped to the broker's ApiVersions), and its consumer-group API
	// refuses versions below V0_10_2_0. Kafka 4 no longer serves the request versions of
	// Kafka < 2.1 (KIP-896), so an old setting would fail there. V2_8_0_0 is sarama's own
	// default ("full protocol coverage for that version") and both brokers serve every
	// request version it sends; we set it explicitly, as sarama's docs ask users to.
	c.Version = sarama.V2_8_0_0
	return c
}

func main() {
	a := scenario.Parse()
	if a.Debug {
		sarama.Logger = log.New(os.Stderr, "[sarama] ", log.Lmicroseconds)
		sarama.DebugLogger = sarama.Logger
	}
	if a.Phase == "produce" {
		produce(a)
	} else {
		consume(a)
	}
}

func produce(a scenario.Args) {
	c := config()
	c.Producer.RequiredAcks = sarama.WaitForAll
	c.Producer.Return.Successes = true // required by the SyncProducer
	producer, err := sarama.NewSyncProducer([]string{a.Brokers}, c)
	if err != nil {
		scenario.Fail("new producer: %v", err)
	}
	messages := make([]*sarama.ProducerMessage, a.Count)
	for i := range messages {
		n := a.First + i
		messages[i] = &sarama.ProducerMessage{Topic: a.Topic, Key: sarama.StringEncoder(scenario.Key(n)),
			Value: sarama.StringEncoder(scenario.Value(n))}
	}
	if err := producer.SendMessages(messages); err != nil {
		scenario.Fail("send: %v", err)
	}
	for i, m := range messages {
		n := a.First + i
		scenario.Emit(scenario.Record{Event: "produced", Key: scenario.Key(n), Value: scenario.Value(n),
			Partition: m.Partition, Offset: m.Offset})
	}
	if err := producer.Close(); err != nil {
		scenario.Fail("close producer: %v", err)
	}
	scenario.Done(a, a.Count)
}

// handler collects records until it has `want`, then marks and commits them and cancels
// the session's parent context so that Consume returns.
type handler struct {
	want    int
	cancel  context.CancelFunc
	mu      sync.Mutex
	records []*sarama.ConsumerMessage
	commit  error
}

func (h *handler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *handler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h *handler) ConsumeClaim(session sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for {
		select {
		case <-session.Context().Done():
			return nil
		case m, ok := <-claim.Messages():
			if !ok {
				return nil
			}
			h.mu.Lock()
			if len(h.records) < h.want {
				h.records = append(h.records, m)
				session.MarkMessage(m, "")
				if len(h.records) == h.want {
					// a synchronous OffsetCommit; its errors arrive on the group's Errors()
					session.Commit()
					h.cancel()
				}
			}
			h.mu.Unlock()
		}
	}
}

func consume(a scenario.Args) {
	c := config()
	c.Consumer.Offsets.Initial = sarama.OffsetOldest
	c.Consumer.Offsets.AutoCommit.Enable = false // committed by hand, once, after `count` records
	c.Consumer.Return.Errors = true
	group, err := sarama.NewConsumerGroup([]string{a.Brokers}, a.Group, c)
	if err != nil {
		scenario.Fail("new consumer group: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), a.Timeout)
	defer cancel()
	done, stop := context.WithCancel(ctx)
	h := &handler{want: a.Count, cancel: stop}

	var groupErrors []error
	var wait sync.WaitGroup
	wait.Add(1)
	go func() {
		defer wait.Done()
		for err := range group.Errors() {
			groupErrors = append(groupErrors, err)
		}
	}()
	for done.Err() == nil {
		// Consume returns at each rebalance; loop until we have our records or time is up
		if err := group.Consume(done, []string{a.Topic}, h); err != nil && !errors.Is(err, context.Canceled) {
			scenario.Fail("consume: %v", err)
		}
	}
	if err := group.Close(); err != nil { // leaves the group
		scenario.Fail("close consumer group: %v", err)
	}
	wait.Wait()
	if len(groupErrors) > 0 {
		scenario.Fail("consumer group errors: %v", groupErrors)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.records) < a.Count {
		scenario.Fail("read %d of %d records in %v", len(h.records), a.Count, a.Timeout)
	}
	for _, m := range h.records {
		scenario.Emit(scenario.Record{Event: "consumed", Key: string(m.Key), Value: string(m.Value),
			Partition: m.Partition, Offset: m.Offset})
	}
	scenario.Done(a, len(h.records))
}
