package dev.pylog.compat;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;

/**
 * The Java KafkaProducer against a broker, then a KafkaConsumer reading back what it wrote.
 *
 * <p>Arguments: bootstrap servers, topic name (created here with 2 partitions), compression
 * codec (none, gzip, snappy, lz4, zstd). The producer is left idempotent by default (no
 * enable.idempotence, no retries setting) with acks=all.
 *
 * <p>Ten records: the first eight sent together (linger.ms lets them share batches), the last
 * two one at a time, each waited for, so the producer's sequence numbers go on across
 * batches. Keys are "key-i" (partitioned by the default murmur2 partitioner), but record 6
 * has no key and an explicit partition and record 7 a null value; timestamps are explicit
 * (BASE + i * 1000); headers vary: a plain one, a repeated key, a null value, none at all.
 *
 * <p>Prints one JSON line per record sent ("sent": its RecordMetadata), per record consumed
 * ("consumed", after assign + seekToBeginning of both partitions) and the end offsets.
 */
public final class ProducerRoundTrip {
    static final long BASE_TIMESTAMP = 1_700_000_000_000L;
    static final int RECORDS = 10;
    static final int BATCHED = 8;
    static final long READ_BACK_MS = 20000;

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        String codec = args[2];

        try (Admin admin = Clients.admin(bootstrap, "java-admin-" + codec)) {
            JsonLine.await(admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all());
        }

        Properties producerProps = Clients.producerProperties(bootstrap, "java-producer-" + codec);
        producerProps.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
        producerProps.put(ProducerConfig.LINGER_MS_CONFIG, 50);

        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps)) {
            List<Future<RecordMetadata>> pending = new ArrayList<>();
            for (int i = 0; i < BATCHED; i++) {
                pending.add(producer.send(record(topic, i)));
            }
            producer.flush();
            for (int i = 0; i < BATCHED; i++) {
                printSent(i, JsonLine.await(pending.get(i)));
            }
            for (int i = BATCHED; i < RECORDS; i++) {
                printSent(i, JsonLine.await(producer.send(record(topic, i))));
            }
        }

        Properties consumerProps = Clients.consumerProperties(bootstrap, "java-reader-" + codec);
        List<TopicPartition> partitions = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps)) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            int consumed = 0;
            long deadline = System.currentTimeMillis() + READ_BACK_MS;
            while (consumed < RECORDS) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("consumed " + consumed + " of " + RECORDS + " records in " + READ_BACK_MS + " ms");
                }
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    consumed++;
                    List<Object> headers = new ArrayList<>();
                    for (Header h : r.headers()) {
                        headers.add(JsonLine.list(h.key(),
                            h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8)));
                    }
                    JsonLine.event("consumed")
                        .put("partition", r.partition())
                        .put("offset", r.offset())
                        .put("key", r.key())
                        .put("value", r.value())
                        .put("timestamp", r.timestamp())
                        .put("timestampType", r.timestampType())
                        .put("headers", headers)
                        .put("leaderEpoch", r.leaderEpoch())
                        .put("serializedKeySize", r.serializedKeySize())
                        .put("serializedValueSize", r.serializedValueSize())
                        .print();
                }
            }
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            JsonLine.event("endOffsets")
                .put("0", ends.get(partitions.get(0)))
                .put("1", ends.get(partitions.get(1)))
                .print();
        }
    }

    /** Record i of the run; test_java_client.py rebuilds the same records to check them. */
    static ProducerRecord<String, String> record(String topic, int i) {
        String key = i == 6 ? null : "key-" + i;
        Integer partition = i == 6 ? Integer.valueOf(1) : null;
        String value = i == 7 ? null : "value-" + i + " " + "compressible text ".repeat(40);
        RecordHeaders headers = new RecordHeaders();
        if (i != 5) {
            headers.add("index", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
        }
        if (i % 3 == 0) {
            headers.add("dup", "first".getBytes(StandardCharsets.UTF_8));
            headers.add("dup", "second".getBytes(StandardCharsets.UTF_8));
        }
        if (i % 2 == 0) {
            headers.add("nothing", null);
        }
        return new ProducerRecord<>(topic, partition, BASE_TIMESTAMP + i * 1000L, key, value, headers);
    }

    private static void printSent(int index, RecordMetadata metadata) {
        JsonLine.event("sent")
            .put("index", index)
            .put("partition", metadata.partition())
            .put("offset", metadata.hasOffset() ? metadata.offset() : null)
            .put("timestamp", metadata.hasTimestamp() ? metadata.timestamp() : null)
            .put("serializedKeySize", metadata.serializedKeySize())
            .put("serializedValueSize", metadata.serializedValueSize())
            .print();
    }

    private ProducerRoundTrip() {
    }
}
