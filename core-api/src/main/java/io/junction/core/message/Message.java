package io.junction.core.message;

import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The canonical message every front-end maps its own to before calling {@code Messaging.send}.
 *
 * <p>Everything beyond the fixed fields travels as properties (see {@link MessageProperties} for the names the core
 * understands), exactly as RocketMQ stores them, so one stored record serves every protocol.
 *
 * @param topic            target topic
 * @param queueId          target queue, or {@link #ANY_QUEUE} to let the core choose (by message group, else round
 *                         robin)
 * @param body             payload, never null
 * @param flag             opaque user flag (RocketMQ's {@code flag})
 * @param properties       tag, keys, ids, user properties; insertion-ordered
 * @param sysFlag          RocketMQ system flags (compression, transaction type) as the producer sent them
 * @param bornTimestamp    producer-side creation time, epoch ms
 * @param bornHost         producer address
 * @param reconsumeTimes   how often this message was redelivered (retry bookkeeping)
 */
public record Message(
        String topic,
        int queueId,
        byte[] body,
        int flag,
        Map<String, String> properties,
        int sysFlag,
        long bornTimestamp,
        InetSocketAddress bornHost,
        int reconsumeTimes) {

    /** Queue id meaning "let the core choose". */
    public static final int ANY_QUEUE = -1;

    private static final InetSocketAddress UNKNOWN_HOST = InetSocketAddress.createUnresolved("0.0.0.0", 0);

    public Message {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(body, "body");
        properties = properties == null ? Map.of() : Collections.unmodifiableMap(properties);
        bornHost = bornHost == null ? UNKNOWN_HOST : bornHost;
    }

    /** Starts a builder for a message to {@code topic}. */
    public static Builder builder(final String topic) {
        return new Builder(topic);
    }

    public String tag() {
        return properties.get(MessageProperties.TAGS);
    }

    public String keys() {
        return properties.get(MessageProperties.KEYS);
    }

    public String uniqueId() {
        return properties.get(MessageProperties.UNIQUE_ID);
    }

    public String messageGroup() {
        return properties.get(MessageProperties.MESSAGE_GROUP);
    }

    public String property(final String name) {
        return properties.get(name);
    }

    /** Builder; {@code properties} is copied on {@link #build()}. */
    public static final class Builder {
        private final String topic;
        private int queueId = ANY_QUEUE;
        private byte[] body = new byte[0];
        private int flag;
        private final Map<String, String> properties = new LinkedHashMap<>();
        private int sysFlag;
        private long bornTimestamp = System.currentTimeMillis();
        private InetSocketAddress bornHost;
        private int reconsumeTimes;

        private Builder(final String topic) {
            this.topic = topic;
        }

        public Builder queueId(final int queueId) {
            this.queueId = queueId;
            return this;
        }

        public Builder body(final byte[] body) {
            this.body = body;
            return this;
        }

        public Builder flag(final int flag) {
            this.flag = flag;
            return this;
        }

        public Builder tag(final String tag) {
            return property(MessageProperties.TAGS, tag);
        }

        public Builder keys(final String keys) {
            return property(MessageProperties.KEYS, keys);
        }

        public Builder uniqueId(final String id) {
            return property(MessageProperties.UNIQUE_ID, id);
        }

        public Builder property(final String name, final String value) {
            if (value == null) {
                properties.remove(name);
            } else {
                properties.put(name, value);
            }
            return this;
        }

        public Builder properties(final Map<String, String> all) {
            properties.putAll(all);
            return this;
        }

        public Builder sysFlag(final int sysFlag) {
            this.sysFlag = sysFlag;
            return this;
        }

        public Builder bornTimestamp(final long bornTimestamp) {
            this.bornTimestamp = bornTimestamp;
            return this;
        }

        public Builder bornHost(final InetSocketAddress bornHost) {
            this.bornHost = bornHost;
            return this;
        }

        public Builder reconsumeTimes(final int reconsumeTimes) {
            this.reconsumeTimes = reconsumeTimes;
            return this;
        }

        public Message build() {
            return new Message(topic, queueId, body, flag, new LinkedHashMap<>(properties), sysFlag, bornTimestamp,
                    bornHost, reconsumeTimes);
        }
    }
}
