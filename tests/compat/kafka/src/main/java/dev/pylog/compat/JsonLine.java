package dev.pylog.compat;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One JSON object printed as one line of stdout: what the Java client programs of
 * tests/compat/test_java_client.py (ProducerRoundTrip, ConsumerGroupCheck, AdminCheck) report,
 * for the Python side to read with json.loads and compare between pylog and Kafka.
 *
 * <p>Values: null, String, Number, Boolean, Enum (its name), Optional (its value or null),
 * Map (an object, keys as strings, in the map's order), Collection (an array), JsonLine (a
 * nested object); anything else is written as its toString(). Written by hand so that the
 * programs need nothing on their compile classpath but kafka-clients.
 *
 * <p>{@link #outcome} is how the programs report an operation whose failure is part of the
 * comparison (an error the broker is expected to answer): {"ok": true, ...} or
 * {"error": "SimpleClassName", "message": ...}. Every other failure propagates and fails the
 * program.
 */
final class JsonLine {
    /** How long a program waits on any one client future. */
    static final long WAIT_SECONDS = 30;

    private final StringBuilder text = new StringBuilder("{");
    private boolean empty = true;

    static JsonLine event(String name) {
        return new JsonLine().put("event", name);
    }

    JsonLine put(String key, Object value) {
        if (!empty) {
            text.append(',');
        }
        empty = false;
        quote(text, key);
        text.append(':');
        write(text, value);
        return this;
    }

    void print() {
        System.out.println(this);
        System.out.flush();
    }

    @Override
    public String toString() {
        return text + "}";
    }

    /** The value of a client future, bounded by WAIT_SECONDS; its failure as the cause itself. */
    static <T> T await(Future<T> future) throws Exception {
        try {
            return future.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }

    /** Wait for `future` and record {"ok": true} or the error it ended with. */
    static <T> JsonLine outcome(String event, Future<T> future) throws Exception {
        JsonLine line = event(event);
        try {
            future.get(WAIT_SECONDS, TimeUnit.SECONDS);
            line.put("ok", true);
        } catch (ExecutionException e) {
            line.put("ok", false).put("error", e.getCause().getClass().getSimpleName())
                .put("message", e.getCause().getMessage());
        }
        return line;
    }

    static List<Object> list(Object... values) {
        List<Object> result = new ArrayList<>();
        for (Object value : values) {
            result.add(value);
        }
        return result;
    }

    private static void write(StringBuilder out, Object value) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String s) {
            quote(out, s);
        } else if (value instanceof Number || value instanceof Boolean) {
            out.append(value);
        } else if (value instanceof Enum<?> e) {
            quote(out, e.name());
        } else if (value instanceof Optional<?> o) {
            write(out, o.orElse(null));
        } else if (value instanceof JsonLine nested) {
            out.append(nested);
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                quote(out, String.valueOf(entry.getKey()));
                out.append(':');
                write(out, entry.getValue());
            }
            out.append('}');
        } else if (value instanceof Collection<?> items) {
            out.append('[');
            boolean first = true;
            for (Object item : items) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                write(out, item);
            }
            out.append(']');
        } else {
            quote(out, value.toString());
        }
    }

    private static void quote(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    private JsonLine() {
    }
}
