package dev.pylog.compat;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TopicListing;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The Java Admin client against a broker, one group of operations per run.
 *
 * <p>Arguments: bootstrap servers, a name prefix (topics and groups are named after it), the
 * step: topics, configs, offsets, groups, cluster, deleteRecords. Each step makes its own
 * topics, so that a step pylog cannot serve fails alone. Answers are printed as JSON lines;
 * errors the step provokes on purpose are printed as {"ok": false, "error": ClassName, ...}
 * (JsonLine.outcome); any other error fails the run.
 */
public final class AdminCheck {
    static final long BASE_TIMESTAMP = 1_700_000_000_000L;

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String prefix = args[1];
        String step = args[2];
        try (Admin admin = Clients.admin(bootstrap, "java-admin-" + step)) {
            switch (step) {
                case "topics" -> topics(admin, prefix);
                case "configs" -> configs(admin, prefix);
                case "offsets" -> offsets(admin, bootstrap, prefix);
                case "groups" -> groups(admin, bootstrap, prefix);
                case "cluster" -> { cluster(admin); clusterWithOptions(admin); }
                case "deleteRecords" -> deleteRecords(admin, bootstrap, prefix);
                case "producers" -> producers(admin, bootstrap, prefix);
                case "brokerConfigs" -> brokerConfigs(admin);
                default -> throw new IllegalArgumentException("unknown step " + step);
            }
        }
    }

    // ---------------------------------------------------------------------------------
    // createTopics, listTopics, describeTopics, createPartitions, deleteTopics

    static void topics(Admin admin, String prefix) throws Exception {
        String topic = prefix + "-t";
        String missing = prefix + "-missing";
        CreateTopicsResult created = admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1)));
        JsonLine.await(created.all());
        awaitTopic(admin, topic, 2);
        JsonLine.event("createTopics")
            .put("numPartitions", JsonLine.await(created.numPartitions(topic)))
            .put("replicationFactor", JsonLine.await(created.replicationFactor(topic)))
            .put("hasTopicId", JsonLine.await(created.topicId(topic)) != null)
            .print();
        JsonLine.outcome("createTopics existing",
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all()).print();
        JsonLine.outcome("createTopics zero partitions",
            admin.createTopics(List.of(new NewTopic(prefix + "-zero", 0, (short) 1))).all()).print();
        JsonLine.outcome("createTopics replication factor 3",
            admin.createTopics(List.of(new NewTopic(prefix + "-rf3", 1, (short) 3))).all()).print();
        JsonLine.outcome("createTopics invalid name",
            admin.createTopics(List.of(new NewTopic(prefix + "-bad/name", 1, (short) 1))).all()).print();

        Map<String, TopicListing> listings = JsonLine.await(admin.listTopics().namesToListings());
        TopicListing listing = listings.get(topic);
        JsonLine.event("listTopics")
            .put("contains", listing != null)
            .put("internal", listing == null ? null : listing.isInternal())
            .put("containsMissing", listings.containsKey(missing))
            .print();

        describeTopic(admin, topic, "describeTopics");
        JsonLine.outcome("describeTopics missing", admin.describeTopics(List.of(missing)).allTopicNames()).print();

        JsonLine.await(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(4))).all());
        awaitTopic(admin, topic, 4);
        JsonLine.event("createPartitions").put("to", 4).print();
        describeTopic(admin, topic, "describeTopics after createPartitions");
        JsonLine.outcome("createPartitions decrease",
            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(3))).all()).print();
        JsonLine.outcome("createPartitions same count",
            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(4))).all()).print();
        JsonLine.outcome("createPartitions missing topic",
            admin.createPartitions(Map.of(missing, NewPartitions.increaseTo(2))).all()).print();

        JsonLine.await(admin.deleteTopics(List.of(topic)).all());
        JsonLine.event("deleteTopics").put("ok", true).print();
        JsonLine.outcome("deleteTopics again", admin.deleteTopics(List.of(topic)).all()).print();
        boolean gone = false;
        long deadline = System.currentTimeMillis() + 15000;
        while (!gone && System.currentTimeMillis() < deadline) {
            gone = !JsonLine.await(admin.listTopics().names()).contains(topic);
            if (!gone) {
                Thread.sleep(100);
            }
        }
        JsonLine.event("listTopics after deleteTopics").put("contains", !gone).print();
        JsonLine.outcome("describeTopics after deleteTopics", admin.describeTopics(List.of(topic)).allTopicNames()).print();
    }

    static void describeTopic(Admin admin, String topic, String event) throws Exception {
        TopicDescription d = JsonLine.await(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic);
        List<Object> partitions = new ArrayList<>();
        for (TopicPartitionInfo p : d.partitions()) {
            Map<String, Object> info = new LinkedHashMap<>();
            info.put("partition", p.partition());
            info.put("leader", p.leader() == null ? null : p.leader().id());
            info.put("replicas", ids(p.replicas()));
            info.put("isr", ids(p.isr()));
            info.put("elr", ids(p.elr()));
            info.put("lastKnownElr", ids(p.lastKnownElr()));
            partitions.add(info);
        }
        JsonLine.event(event)
            .put("name", d.name())
            .put("internal", d.isInternal())
            .put("hasTopicId", d.topicId() != null && !d.topicId().toString().equals("AAAAAAAAAAAAAAAAAAAAAA"))
            .put("authorizedOperations", d.authorizedOperations())
            .put("partitions", partitions)
            .print();
    }

    // ---------------------------------------------------------------------------------
    // createTopics with configs, describeConfigs, incrementalAlterConfigs

    static void configs(Admin admin, String prefix) throws Exception {
        String topic = prefix + "-t";
        Map<String, String> given = new TreeMap<>(Map.of(
            "retention.ms", "3600000", "cleanup.policy", "compact", "max.message.bytes", "200000"));
        CreateTopicsResult created = admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(given)));
        JsonLine.await(created.all());
        awaitTopic(admin, topic, 1);
        printConfig("createTopics config", JsonLine.await(created.config(topic)), false);
        JsonLine.outcome("createTopics bad value", admin.createTopics(List.of(
            new NewTopic(prefix + "-badvalue", 1, (short) 1).configs(Map.of("retention.ms", "soon")))).all()).print();
        JsonLine.outcome("createTopics unknown config", admin.createTopics(List.of(
            new NewTopic(prefix + "-unknown", 1, (short) 1).configs(Map.of("no.such.config", "1")))).all()).print();

        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        printConfig("describeConfigs", describe(admin, resource, false), false);
        printConfig("describeConfigs with synonyms", describe(admin, resource, true), true);
        JsonLine.outcome("describeConfigs missing topic", admin.describeConfigs(
            List.of(new ConfigResource(ConfigResource.Type.TOPIC, prefix + "-missing"))).all()).print();

        Map<ConfigResource, Collection<AlterConfigOp>> ops = Map.of(resource, List.of(
            new AlterConfigOp(new ConfigEntry("retention.ms", "7200000"), AlterConfigOp.OpType.SET),
            new AlterConfigOp(new ConfigEntry("max.message.bytes", null), AlterConfigOp.OpType.DELETE),
            new AlterConfigOp(new ConfigEntry("cleanup.policy", "delete"), AlterConfigOp.OpType.APPEND),
            new AlterConfigOp(new ConfigEntry("segment.bytes", "10485760"), AlterConfigOp.OpType.SET)));
        JsonLine.await(admin.incrementalAlterConfigs(ops).all());
        JsonLine.event("incrementalAlterConfigs").put("ok", true).print();
        printConfig("describeConfigs after incrementalAlterConfigs",
            awaitValue(admin, resource, "retention.ms", "7200000", false), false);
        JsonLine.outcome("incrementalAlterConfigs subtract", admin.incrementalAlterConfigs(Map.of(resource, List.of(
            new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.SUBTRACT)))).all()).print();
        Config afterSubtract = awaitValue(admin, resource, "cleanup.policy", "delete", false);
        JsonLine.event("cleanup.policy after subtract").put("value", afterSubtract.get("cleanup.policy").value()).print();
        JsonLine.outcome("incrementalAlterConfigs validateOnly", admin.incrementalAlterConfigs(Map.of(resource, List.of(
                new AlterConfigOp(new ConfigEntry("retention.ms", "1"), AlterConfigOp.OpType.SET))),
            new org.apache.kafka.clients.admin.AlterConfigsOptions().validateOnly(true)).all()).print();
        JsonLine.event("retention.ms after validateOnly")
            .put("value", describe(admin, resource, false).get("retention.ms").value()).print();
        JsonLine.outcome("incrementalAlterConfigs unknown config", admin.incrementalAlterConfigs(Map.of(resource, List.of(
            new AlterConfigOp(new ConfigEntry("no.such.config", "1"), AlterConfigOp.OpType.SET)))).all()).print();
        JsonLine.outcome("incrementalAlterConfigs bad value", admin.incrementalAlterConfigs(Map.of(resource, List.of(
            new AlterConfigOp(new ConfigEntry("retention.ms", "soon"), AlterConfigOp.OpType.SET)))).all()).print();
        JsonLine.outcome("incrementalAlterConfigs missing topic", admin.incrementalAlterConfigs(Map.of(
            new ConfigResource(ConfigResource.Type.TOPIC, prefix + "-missing"), List.of(
                new AlterConfigOp(new ConfigEntry("retention.ms", "1000"), AlterConfigOp.OpType.SET)))).all()).print();
    }

    static Config describe(Admin admin, ConfigResource resource, boolean synonyms) throws Exception {
        DescribeConfigsOptions options = new DescribeConfigsOptions().includeSynonyms(synonyms);
        return JsonLine.await(admin.describeConfigs(List.of(resource), options).all()).get(resource);
    }

    static void printConfig(String event, Config config, boolean synonyms) {
        Map<String, Object> entries = new TreeMap<>();
        for (ConfigEntry e : config.entries()) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("value", e.value());
            entry.put("source", e.source());
            entry.put("readOnly", e.isReadOnly());
            entry.put("sensitive", e.isSensitive());
            entry.put("type", e.type());
            if (synonyms) {
                List<Object> list = new ArrayList<>();
                for (ConfigEntry.ConfigSynonym s : e.synonyms()) {
                    list.add(JsonLine.list(s.name(), s.value(), s.source()));
                }
                entry.put("synonyms", list);
            }
            entries.put(e.name(), entry);
        }
        JsonLine.event(event).put("entries", entries).print();
    }

    // ---------------------------------------------------------------------------------
    // listOffsets

    static void offsets(Admin admin, String bootstrap, String prefix) throws Exception {
        String topic = prefix + "-t";
        JsonLine.await(admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all());
        awaitTopic(admin, topic, 2);
        // partition 0: the largest timestamp at offset 3; partition 1 stays empty
        long[] timestamps = {0, 3000, 1000, 4000, 2000};
        try (KafkaProducer<String, String> producer = Clients.producer(bootstrap, "java-admin-producer")) {
            for (int i = 0; i < timestamps.length; i++) {
                producer.send(new ProducerRecord<>(topic, 0, BASE_TIMESTAMP + timestamps[i], "k" + i, "v" + i));
            }
            producer.flush();
        }
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        Map<String, OffsetSpec> specs = new LinkedHashMap<>();
        specs.put("earliest", OffsetSpec.earliest());
        specs.put("latest", OffsetSpec.latest());
        specs.put("maxTimestamp", OffsetSpec.maxTimestamp());
        specs.put("forTimestamp +1500", OffsetSpec.forTimestamp(BASE_TIMESTAMP + 1500));
        specs.put("forTimestamp +1000", OffsetSpec.forTimestamp(BASE_TIMESTAMP + 1000));
        specs.put("forTimestamp +0", OffsetSpec.forTimestamp(BASE_TIMESTAMP));
        specs.put("forTimestamp +99000", OffsetSpec.forTimestamp(BASE_TIMESTAMP + 99000));
        for (Map.Entry<String, OffsetSpec> spec : specs.entrySet()) {
            Map<TopicPartition, OffsetSpec> request = new HashMap<>();
            request.put(p0, spec.getValue());
            request.put(p1, spec.getValue());
            ListOffsetsResult result = admin.listOffsets(request);
            Map<String, Object> byPartition = new TreeMap<>();
            for (TopicPartition tp : List.of(p0, p1)) {
                ListOffsetsResult.ListOffsetsResultInfo info = JsonLine.await(result.partitionResult(tp));
                Map<String, Object> answer = new LinkedHashMap<>();
                answer.put("offset", info.offset());
                answer.put("timestamp", info.timestamp());
                answer.put("leaderEpoch", info.leaderEpoch());
                byPartition.put(Integer.toString(tp.partition()), answer);
            }
            JsonLine.event("listOffsets").put("spec", spec.getKey()).put("partitions", byPartition).print();
        }
    }

    // ---------------------------------------------------------------------------------
    // listConsumerGroups, describeConsumerGroups, listConsumerGroupOffsets,
    // alterConsumerGroupOffsets, deleteConsumerGroupOffsets, deleteConsumerGroups

    static void groups(Admin admin, String bootstrap, String prefix) throws Exception {
        String topic = prefix + "-t";
        String group = prefix + "-g";
        String clientId = prefix + "-c";
        JsonLine.await(admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all());
        awaitTopic(admin, topic, 2);
        try (KafkaProducer<String, String> producer = Clients.producer(bootstrap, "java-admin-producer")) {
            for (int p = 0; p < 2; p++) {
                for (int i = 0; i < 4; i++) {
                    producer.send(new ProducerRecord<>(topic, p, "k" + i, "v" + i));
                }
            }
            producer.flush();
        }
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);

        try (KafkaConsumer<String, String> consumer = Clients.groupConsumer(bootstrap, group, clientId)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.currentTimeMillis() + 30000;
            while (consumer.assignment().size() < 2) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("the consumer got no assignment in 30 s");
                }
                consumer.poll(Duration.ofMillis(100));
            }
            Map<TopicPartition, OffsetAndMetadata> commit = new LinkedHashMap<>();
            commit.put(p0, new OffsetAndMetadata(2, "from-consumer"));
            commit.put(p1, new OffsetAndMetadata(1));
            consumer.commitSync(commit, Duration.ofSeconds(20));

            describeGroup(admin, group, clientId, "describeConsumerGroups active");
            listGroups(admin, group, "active");
            listGroupOffsets(admin, group, "listConsumerGroupOffsets active");
            JsonLine.outcome("deleteConsumerGroupOffsets active",
                admin.deleteConsumerGroupOffsets(group, Set.of(p0)).all()).print();
            JsonLine.outcome("deleteConsumerGroups active", admin.deleteConsumerGroups(List.of(group)).all()).print();
            JsonLine.outcome("alterConsumerGroupOffsets active",
                admin.alterConsumerGroupOffsets(group, Map.of(p0, new OffsetAndMetadata(0))).all()).print();
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(20)));
        }
        JsonLine.event("closed").print();

        describeGroup(admin, group, clientId, "describeConsumerGroups empty");
        listGroups(admin, group, "empty");
        Map<TopicPartition, OffsetAndMetadata> altered = new LinkedHashMap<>();
        altered.put(p0, new OffsetAndMetadata(3, "from-admin"));
        altered.put(p1, new OffsetAndMetadata(0));
        JsonLine.await(admin.alterConsumerGroupOffsets(group, altered).all());
        JsonLine.event("alterConsumerGroupOffsets").put("ok", true).print();
        listGroupOffsets(admin, group, "listConsumerGroupOffsets after alter");
        JsonLine.await(admin.deleteConsumerGroupOffsets(group, Set.of(p1)).all());
        JsonLine.event("deleteConsumerGroupOffsets").put("ok", true).print();
        listGroupOffsets(admin, group, "listConsumerGroupOffsets after deleteConsumerGroupOffsets");
        JsonLine.outcome("deleteConsumerGroupOffsets unknown group",
            admin.deleteConsumerGroupOffsets(prefix + "-nogroup", Set.of(p1)).all()).print();

        JsonLine.await(admin.deleteConsumerGroups(List.of(group)).all());
        JsonLine.event("deleteConsumerGroups").put("ok", true).print();
        JsonLine.outcome("deleteConsumerGroups again", admin.deleteConsumerGroups(List.of(group)).all()).print();
        listGroups(admin, group, "deleted");
        listGroupOffsets(admin, group, "listConsumerGroupOffsets after deleteConsumerGroups");
        JsonLine.outcome("describeConsumerGroups deleted", admin.describeConsumerGroups(List.of(group)).all()).print();
        describeGroup(admin, group, clientId, "describeConsumerGroups deleted (answer)");
    }

    static void describeGroup(Admin admin, String group, String clientId, String event) throws Exception {
        ConsumerGroupDescription d;
        try {
            d = JsonLine.await(admin.describeConsumerGroups(List.of(group)).all()).get(group);
        } catch (Exception e) {
            JsonLine.event(event).put("error", e.getClass().getSimpleName()).put("message", e.getMessage()).print();
            return;
        }
        List<Object> members = new ArrayList<>();
        for (MemberDescription m : d.members()) {
            Map<String, Object> member = new LinkedHashMap<>();
            member.put("clientId", m.clientId());
            member.put("consumerIdStartsWithClientId", m.consumerId().startsWith(clientId + "-"));
            member.put("groupInstanceId", m.groupInstanceId());
            member.put("hostIsSet", m.host() != null && !m.host().isEmpty());
            List<Integer> assigned = new ArrayList<>();
            for (TopicPartition tp : m.assignment().topicPartitions()) {
                assigned.add(tp.partition());
            }
            assigned.sort(null);
            member.put("assignment", assigned);
            member.put("targetAssignment", m.targetAssignment().isPresent() ? "present" : "none");
            member.put("memberEpoch", m.memberEpoch());
            member.put("upgraded", m.upgraded());
            members.add(member);
        }
        Node coordinator = d.coordinator();
        JsonLine.event(event)
            .put("groupId", d.groupId())
            .put("isSimpleConsumerGroup", d.isSimpleConsumerGroup())
            .put("groupState", d.groupState())
            .put("type", d.type())
            .put("partitionAssignor", d.partitionAssignor())
            .put("coordinator", coordinator == null ? null : coordinator.id())
            .put("authorizedOperations", d.authorizedOperations())
            .put("groupEpoch", d.groupEpoch())
            .put("targetAssignmentEpoch", d.targetAssignmentEpoch())
            .put("members", members)
            .print();
    }

    @SuppressWarnings("removal")
    static void listGroups(Admin admin, String group, String when) throws Exception {
        ConsumerGroupListing old = null;
        for (ConsumerGroupListing listing : JsonLine.await(admin.listConsumerGroups().all())) {
            if (listing.groupId().equals(group)) {
                old = listing;
            }
        }
        JsonLine.event("listConsumerGroups")
            .put("when", when)
            .put("listed", old != null)
            .put("isSimpleConsumerGroup", old == null ? null : old.isSimpleConsumerGroup())
            .put("groupState", old == null ? null : old.groupState())
            .put("type", old == null ? null : old.type())
            .print();
        GroupListing found = null;
        for (GroupListing listing : JsonLine.await(admin.listGroups(ListGroupsOptions.forConsumerGroups()).all())) {
            if (listing.groupId().equals(group)) {
                found = listing;
            }
        }
        JsonLine.event("listGroups forConsumerGroups")
            .put("when", when)
            .put("listed", found != null)
            .put("protocol", found == null ? null : found.protocol())
            .put("groupState", found == null ? null : found.groupState())
            .put("type", found == null ? null : found.type())
            .print();
    }

    static void listGroupOffsets(Admin admin, String group, String event) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets =
            JsonLine.await(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
        Map<String, Object> byPartition = new TreeMap<>();
        offsets.forEach((tp, o) -> byPartition.put(Integer.toString(tp.partition()), o == null ? null
            : JsonLine.list(o.offset(), o.metadata(), o.leaderEpoch())));
        JsonLine.event(event).put("partitions", byPartition).print();
    }

    // ---------------------------------------------------------------------------------
    // describeCluster

    static void cluster(Admin admin) throws Exception {
        DescribeClusterResult cluster = admin.describeCluster();
        List<Object> nodes = new ArrayList<>();
        for (Node node : JsonLine.await(cluster.nodes())) {
            nodes.add(JsonLine.list(node.id(), node.host(), node.port(), node.rack()));
        }
        Node controller = JsonLine.await(cluster.controller());
        String clusterId = JsonLine.await(cluster.clusterId());
        JsonLine.event("describeCluster")
            .put("nodes", nodes)
            .put("controller", controller == null ? null : controller.id())
            .put("clusterId", clusterId)
            .put("authorizedOperations", JsonLine.await(cluster.authorizedOperations()))
            .print();
    }

    // describeCluster with its options: fenced brokers and the authorized operations

    static void clusterWithOptions(Admin admin) throws Exception {
        DescribeClusterResult cluster = admin.describeCluster(new org.apache.kafka.clients.admin.DescribeClusterOptions()
            .includeAuthorizedOperations(true).includeFencedBrokers(true));
        List<Object> nodes = new ArrayList<>();
        for (Node node : JsonLine.await(cluster.nodes())) {
            nodes.add(JsonLine.list(node.id(), node.isFenced()));
        }
        List<String> operations = new ArrayList<>();
        for (var operation : JsonLine.await(cluster.authorizedOperations())) {
            operations.add(operation.toString());
        }
        java.util.Collections.sort(operations);
        JsonLine.event("describeCluster with options").put("nodes", nodes).put("authorizedOperations", operations).print();
    }

    // ---------------------------------------------------------------------------------
    // describeProducers

    static void producers(Admin admin, String bootstrap, String prefix) throws Exception {
        String topic = prefix + "-t";
        JsonLine.await(admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all());
        awaitTopic(admin, topic, 2);
        Map<String, Object> config = new HashMap<>(Map.of(
            "bootstrap.servers", bootstrap, "enable.idempotence", "true", "acks", "all",
            "key.serializer", "org.apache.kafka.common.serialization.StringSerializer",
            "value.serializer", "org.apache.kafka.common.serialization.StringSerializer"));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            for (int i = 0; i < 3; i++) {
                producer.send(new ProducerRecord<>(topic, 0, 1_700_000_000_000L + i, "k", "v" + i)).get();
            }
        }
        TopicPartition written = new TopicPartition(topic, 0);
        TopicPartition empty = new TopicPartition(topic, 1);
        var described = JsonLine.await(admin.describeProducers(List.of(written, empty)).all());
        for (TopicPartition partition : List.of(written, empty)) {
            List<Object> states = new ArrayList<>();
            for (var state : described.get(partition).activeProducers()) {
                states.add(JsonLine.list(state.producerEpoch(), state.lastSequence(), state.lastTimestamp(),
                    state.coordinatorEpoch().isPresent() ? (Object) state.coordinatorEpoch().getAsInt() : null,
                    state.currentTransactionStartOffset().isPresent()
                        ? (Object) state.currentTransactionStartOffset().getAsLong() : null));
            }
            JsonLine.event("describeProducers").put("partition", partition.partition()).put("producers", states).print();
        }
    }

    // ---------------------------------------------------------------------------------
    // incrementalAlterConfigs on broker resources (a node id, and the cluster default)

    static void brokerConfigs(Admin admin) throws Exception {
        ConfigResource node = new ConfigResource(ConfigResource.Type.BROKER, "1");
        ConfigResource cluster = new ConfigResource(ConfigResource.Type.BROKER, "");
        String name = "log.cleaner.backoff.ms";
        for (ConfigResource resource : List.of(node, cluster)) {
            String which = resource.name().isEmpty() ? "cluster default" : "broker 1";
            JsonLine.outcome("incrementalAlterConfigs " + which, admin.incrementalAlterConfigs(Map.of(resource, List.of(
                new AlterConfigOp(new ConfigEntry(name, "20000"), AlterConfigOp.OpType.SET)))).all()).print();
            ConfigEntry entry = awaitBrokerValue(admin, node, name, "20000");
            List<Object> synonyms = new ArrayList<>();
            for (var synonym : entry.synonyms()) {
                synonyms.add(JsonLine.list(synonym.name(), synonym.value(), synonym.source().toString()));
            }
            JsonLine.event("broker 1 " + name + " after " + which).put("value", entry.value())
                .put("source", entry.source().toString()).put("synonyms", synonyms).print();
            JsonLine.outcome("incrementalAlterConfigs delete " + which, admin.incrementalAlterConfigs(Map.of(
                resource, List.of(new AlterConfigOp(new ConfigEntry(name, null), AlterConfigOp.OpType.DELETE)))).all()).print();
        }
        ConfigEntry restored = awaitBrokerValue(admin, node, name, "15000");
        JsonLine.event("broker 1 " + name + " after deletes").put("value", restored.value())
            .put("source", restored.source().toString()).print();
        JsonLine.outcome("incrementalAlterConfigs read-only", admin.incrementalAlterConfigs(Map.of(node, List.of(
            new AlterConfigOp(new ConfigEntry("log.dirs", "/elsewhere"), AlterConfigOp.OpType.SET)))).all()).print();
        JsonLine.outcome("incrementalAlterConfigs validateOnly", admin.incrementalAlterConfigs(Map.of(node, List.of(
                new AlterConfigOp(new ConfigEntry(name, "30000"), AlterConfigOp.OpType.SET))),
            new org.apache.kafka.clients.admin.AlterConfigsOptions().validateOnly(true)).all()).print();
        JsonLine.event("broker 1 " + name + " after validateOnly")
            .put("value", describe(admin, node, false).get(name).value()).print();
    }

    /** The broker's entry once it shows `value`, or after 10 s (see awaitValue). */
    static ConfigEntry awaitBrokerValue(Admin admin, ConfigResource node, String name, String value) throws Exception {
        return awaitValue(admin, node, name, value, true).get(name);
    }

    /**
     * The resource's configs once `name` shows `value`, or after 10 s: Kafka answers an
     * alteration once its controller has committed it, and the broker that answers the next
     * DescribeConfigs may not have applied that metadata yet.
     */
    static Config awaitValue(Admin admin, ConfigResource resource, String name, String value, boolean synonyms)
            throws Exception {
        long deadline = System.currentTimeMillis() + 10_000;
        while (true) {
            Config config = describe(admin, resource, synonyms);
            ConfigEntry entry = config.get(name);
            if ((entry != null && value.equals(entry.value())) || System.currentTimeMillis() > deadline) {
                return config;
            }
            Thread.sleep(50);
        }
    }

    // ---------------------------------------------------------------------------------
    // deleteRecords

    static void deleteRecords(Admin admin, String bootstrap, String prefix) throws Exception {
        String topic = prefix + "-t";
        JsonLine.await(admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all());
        awaitTopic(admin, topic, 1);
        try (KafkaProducer<String, String> producer = Clients.producer(bootstrap, "java-admin-producer")) {
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i));
            }
            producer.flush();
        }
        TopicPartition p0 = new TopicPartition(topic, 0);
        KafkaFuture<org.apache.kafka.clients.admin.DeletedRecords> deleted =
            admin.deleteRecords(Map.of(p0, RecordsToDelete.beforeOffset(2))).lowWatermarks().get(p0);
        JsonLine.event("deleteRecords").put("lowWatermark", JsonLine.await(deleted).lowWatermark()).print();
        ListOffsetsResult.ListOffsetsResultInfo earliest =
            JsonLine.await(admin.listOffsets(Map.of(p0, OffsetSpec.earliest())).partitionResult(p0));
        JsonLine.event("listOffsets earliest after deleteRecords").put("offset", earliest.offset()).print();
        JsonLine.outcome("deleteRecords beyond the end",
            admin.deleteRecords(Map.of(p0, RecordsToDelete.beforeOffset(99))).all()).print();
    }

    /**
     * Wait (bounded) until the broker's metadata shows `topic` with `partitions` partitions:
     * Kafka answers CreateTopics and CreatePartitions once its controller has committed them,
     * which can be a moment before the broker that answers the next request has applied them.
     */
    static void awaitTopic(Admin admin, String topic, int partitions) throws Exception {
        long deadline = System.currentTimeMillis() + 15000;
        while (true) {
            try {
                TopicDescription d = JsonLine.await(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic);
                if (d.partitions().size() == partitions) {
                    return;
                }
            } catch (org.apache.kafka.common.errors.UnknownTopicOrPartitionException e) {
                // not there yet
            }
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException(topic + " does not have " + partitions + " partitions after 15 s");
            }
            Thread.sleep(50);
        }
    }

    // ---------------------------------------------------------------------------------

    private static List<Integer> ids(List<Node> nodes) {
        List<Integer> result = new ArrayList<>();
        if (nodes != null) {
            for (Node n : nodes) {
                result.add(n.id());
            }
        }
        return result;
    }

    private AdminCheck() {
    }
}
