package dev.pylog.compat;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

/**
 * The Java KafkaConsumer in a consumer group (group.protocol=classic) against a broker.
 *
 * <p>Arguments: bootstrap servers, a name prefix. Creates topic PREFIX-t with 4 partitions and
 * 5 records in each (offset i has timestamp BASE + i * 1000), then:
 *
 * <ol>
 *   <li>member "a" (client id PREFIX-a) subscribes and gets all 4 partitions;</li>
 *   <li>member "b" (PREFIX-b) subscribes to the same group: a rebalance, after which each has
 *       2 (the default assignors are [range, cooperative-sticky]: range, members in member-id
 *       order, so a gets 0-1 and b 2-3);</li>
 *   <li>commitSync of explicit offsets by each (metadata, a leader epoch on one), committed()
 *       read back by both;</li>
 *   <li>seek of a's partition 0 to offset 3, the next record of partition 0 it polls;</li>
 *   <li>offsetsForTimes: between two records, an exact timestamp, after the last, before the
 *       first; beginningOffsets and endOffsets;</li>
 *   <li>b closes (LeaveGroup): a gets the 4 partitions back.</li>
 * </ol>
 *
 * <p>Every rebalance callback and each phase's assignment and generation is printed as one
 * JSON line. The two consumers run in this one thread, polled in turn (every wait bounded).
 */
public final class ConsumerGroupCheck {
    static final long BASE_TIMESTAMP = 1_700_000_000_000L;
    static final int PARTITIONS = 4;
    static final int PER_PARTITION = 5;
    static final long WAIT_MS = 30000;

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String prefix = args[1];
        String topic = prefix + "-t";
        String group = prefix + "-g";
        List<TopicPartition> partitions = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            partitions.add(new TopicPartition(topic, p));
        }

        try (Admin admin = Clients.admin(bootstrap, prefix + "-admin")) {
            JsonLine.await(admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all());
        }
        try (KafkaProducer<String, String> producer = Clients.producer(bootstrap, prefix + "-producer")) {
            for (int p = 0; p < PARTITIONS; p++) {
                for (int i = 0; i < PER_PARTITION; i++) {
                    producer.send(new ProducerRecord<>(topic, p, BASE_TIMESTAMP + i * 1000L, "k" + i, "p" + p + "-v" + i));
                }
            }
            producer.flush();
        }

        try (KafkaConsumer<String, String> a = Clients.groupConsumer(bootstrap, group, prefix + "-a");
             KafkaConsumer<String, String> b = Clients.groupConsumer(bootstrap, group, prefix + "-b")) {
            a.subscribe(List.of(topic), listener("a"));
            pollUntil("a alone has 4 partitions", () -> a.assignment().size() == PARTITIONS, a);
            printAssignment("alone", "a", prefix + "-a", a);

            b.subscribe(List.of(topic), listener("b"));
            pollUntil("a and b have 2 partitions each",
                () -> a.assignment().size() == 2 && b.assignment().size() == 2, a, b);
            printAssignment("split", "a", prefix + "-a", a);
            printAssignment("split", "b", prefix + "-b", b);

            Map<TopicPartition, OffsetAndMetadata> fromA = new LinkedHashMap<>();
            fromA.put(partitions.get(0), new OffsetAndMetadata(2, "meta-a0"));
            fromA.put(partitions.get(1), new OffsetAndMetadata(3, Optional.of(0), "meta-a1"));
            a.commitSync(fromA, Duration.ofSeconds(20));
            printCommitted("a", "after a committed", a.committed(new HashSet<>(partitions), Duration.ofSeconds(20)));
            Map<TopicPartition, OffsetAndMetadata> fromB = new LinkedHashMap<>();
            fromB.put(partitions.get(2), new OffsetAndMetadata(4));
            fromB.put(partitions.get(3), new OffsetAndMetadata(5, ""));
            b.commitSync(fromB, Duration.ofSeconds(20));
            printCommitted("b", "after b committed", b.committed(new HashSet<>(partitions), Duration.ofSeconds(20)));

            TopicPartition p0 = partitions.get(0);
            a.seek(p0, 3);
            JsonLine.event("positionAfterSeek").put("partition", 0).put("position", a.position(p0)).print();
            ConsumerRecord<String, String> first = null;
            long deadline = System.currentTimeMillis() + WAIT_MS;
            while (first == null) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("no record of partition 0 after the seek in " + WAIT_MS + " ms");
                }
                if (!a.assignment().contains(p0)) {
                    throw new IllegalStateException("a lost partition 0 to an unplanned rebalance: " + a.assignment());
                }
                for (ConsumerRecord<String, String> r : a.poll(Duration.ofMillis(100))) {
                    if (r.partition() == 0 && first == null) {
                        first = r;
                    }
                }
                b.poll(Duration.ofMillis(10));
            }
            JsonLine.event("firstAfterSeek")
                .put("partition", first.partition())
                .put("offset", first.offset())
                .put("key", first.key())
                .put("value", first.value())
                .put("timestamp", first.timestamp())
                .print();

            Map<TopicPartition, Long> query = new LinkedHashMap<>();
            query.put(partitions.get(0), BASE_TIMESTAMP + 1500);   // between offsets 1 and 2
            query.put(partitions.get(1), BASE_TIMESTAMP + 4000);   // offset 4 exactly
            query.put(partitions.get(2), BASE_TIMESTAMP + 99000);  // after the last record
            query.put(partitions.get(3), BASE_TIMESTAMP - 1);      // before the first
            Map<TopicPartition, OffsetAndTimestamp> found = a.offsetsForTimes(query, Duration.ofSeconds(20));
            Map<String, Object> byPartition = new TreeMap<>();
            for (TopicPartition tp : partitions) {
                OffsetAndTimestamp hit = found.get(tp);
                byPartition.put(Integer.toString(tp.partition()), hit == null ? null : new TreeMap<>(Map.of(
                    "query", query.get(tp), "offset", hit.offset(), "timestamp", hit.timestamp(),
                    "leaderEpoch", hit.leaderEpoch().map(Object::toString).orElse("none"))));
            }
            JsonLine.event("offsetsForTimes").put("partitions", byPartition).print();
            JsonLine.event("beginningOffsets").put("partitions", byNumber(a.beginningOffsets(partitions, Duration.ofSeconds(20)))).print();
            JsonLine.event("endOffsets").put("partitions", byNumber(a.endOffsets(partitions, Duration.ofSeconds(20)))).print();

            b.close(CloseOptions.timeout(Duration.ofSeconds(20)));
            JsonLine.event("closed").put("member", "b").print();
            pollUntil("a has the 4 partitions back", () -> a.assignment().size() == PARTITIONS, a);
            printAssignment("after b left", "a", prefix + "-a", a);
        }
    }

    private static ConsumerRebalanceListener listener(String member) {
        return new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
                JsonLine.event("revoked").put("member", member).put("partitions", numbers(revoked)).print();
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
                JsonLine.event("assigned").put("member", member).put("partitions", numbers(assigned)).print();
            }
        };
    }

    @SafeVarargs
    private static void pollUntil(String what, BooleanSupplier done, KafkaConsumer<String, String>... consumers) {
        long deadline = System.currentTimeMillis() + WAIT_MS;
        while (!done.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("not within " + WAIT_MS + " ms: " + what);
            }
            for (KafkaConsumer<String, String> c : consumers) {
                c.poll(Duration.ofMillis(100));
            }
        }
    }

    private static void printAssignment(String phase, String member, String clientId, KafkaConsumer<String, String> c) {
        JsonLine.event("assignment")
            .put("phase", phase)
            .put("member", member)
            .put("partitions", numbers(c.assignment()))
            .put("generation", c.groupMetadata().generationId())
            .put("memberIdStartsWithClientId", c.groupMetadata().memberId().startsWith(clientId + "-"))
            .print();
    }

    private static void printCommitted(String member, String when, Map<TopicPartition, OffsetAndMetadata> committed) {
        Map<String, Object> byPartition = new TreeMap<>();
        for (Map.Entry<TopicPartition, OffsetAndMetadata> entry : committed.entrySet()) {
            OffsetAndMetadata o = entry.getValue();
            byPartition.put(Integer.toString(entry.getKey().partition()), o == null ? null : new TreeMap<>(Map.of(
                "offset", o.offset(), "metadata", o.metadata(),
                "leaderEpoch", o.leaderEpoch().map(Object::toString).orElse("none"))));
        }
        JsonLine.event("committed").put("member", member).put("when", when).put("partitions", byPartition).print();
    }

    private static List<Integer> numbers(Collection<TopicPartition> partitions) {
        Set<Integer> sorted = new java.util.TreeSet<>();
        for (TopicPartition tp : partitions) {
            sorted.add(tp.partition());
        }
        return new ArrayList<>(sorted);
    }

    private static Map<String, Object> byNumber(Map<TopicPartition, Long> offsets) {
        Map<String, Object> result = new TreeMap<>();
        offsets.forEach((tp, offset) -> result.put(Integer.toString(tp.partition()), offset));
        return result;
    }

    private ConsumerGroupCheck() {
    }
}
