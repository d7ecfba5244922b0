package dev.pylog.compat;

import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.SslConfigs;

/**
 * The broker configs of the reference Kafka, one JSON line per name, in name order: the keys
 * of its ConfigDef (a broker describes the internal ones only when they are given), with the
 * type, the default as DescribeConfigs writes it (null when the default is null, absent when
 * there is none), the validator as ConfigDef prints it, and how the name may be updated
 * dynamically ("per-broker", "cluster-wide", or null when only statically), and whether a
 * dynamic update must name a listener (the SSL key and trust stores, set as
 * listener.name.NAME.ssl...).
 *
 * <p>Read by tests/compat/broker_config_table.py, which writes pylog's table of Kafka's
 * broker configs from it and checks that table against it.
 */
public final class BrokerConfigDefs {
    public static void main(String[] args) {
        Map<String, String> modes = kafka.server.DynamicBrokerConfig$.MODULE$.dynamicConfigUpdateModes();
        Map<String, ConfigDef.ConfigKey> keys = new TreeMap<>(kafka.server.KafkaConfig.configDef().configKeys());
        for (ConfigDef.ConfigKey key : keys.values()) {
            JsonLine line = JsonLine.event("config").put("name", key.name).put("type", key.type.name());
            if (key.hasDefault()) {
                line.put("default", key.defaultValue == null ? null
                        : ConfigDef.convertToString(key.defaultValue, key.type));
            }
            line.put("validator", key.validator == null ? null : key.validator.toString())
                .put("dynamic", modes.get(key.name))
                .put("per_listener", SslConfigs.RECONFIGURABLE_CONFIGS.contains(key.name))
                .put("internal", key.internalConfig)
                .print();
        }
    }
}
