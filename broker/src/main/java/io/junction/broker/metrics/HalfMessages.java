package io.junction.broker.metrics;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Half messages (transactions) sent and not yet ended, by topic and protocol: RocketMQ's
 * {@code rocketmq_half_messages}. An end names the half message by id only, so the topic of each open half message is
 * remembered (bounded, and forgotten after {@link #FORGET_AFTER}: a transaction nobody ends is rolled back by the
 * core's check-backs long before). An end through another protocol than the send's still finds it.
 */
final class HalfMessages {

    static final String NAME = "rocketmq_half_messages";
    private static final Duration FORGET_AFTER = Duration.ofHours(1);

    private final MeterRegistry registry;
    private final ConcurrentMap<Key, AtomicLong> open = new ConcurrentHashMap<>();
    private final Cache<String, Key> byId;

    /** The labels of one open half message. */
    record Key(String topic, String protocol) {
    }

    HalfMessages(final MeterRegistry registry, final int maxOpen) {
        this.registry = registry;
        this.byId = Caffeine.newBuilder().maximumSize(maxOpen).expireAfterWrite(FORGET_AFTER)
                .executor(Runnable::run)
                .<String, Key>removalListener((id, key, cause) -> {
                    if (key != null && cause != RemovalCause.EXPLICIT && cause != RemovalCause.REPLACED) {
                        counter(key).decrementAndGet();
                    }
                })
                .build();
    }

    /** A half message was stored. */
    void sent(final String uniqueId, final String topic, final String protocol) {
        if (uniqueId == null) {
            return;
        }
        final Key key = new Key(topic, protocol);
        counter(key).incrementAndGet();
        byId.put(uniqueId, key);
    }

    /** A half message was committed or rolled back; returns its topic, or null when it was not remembered. */
    String ended(final String uniqueId) {
        final Key key = uniqueId == null ? null : byId.asMap().remove(uniqueId);
        if (key == null) {
            return null;
        }
        counter(key).decrementAndGet();
        return key.topic();
    }

    private AtomicLong counter(final Key key) {
        final AtomicLong c = open.get(key);
        return c != null ? c : open.computeIfAbsent(key, k -> {
            final AtomicLong n = new AtomicLong();
            Gauge.builder(NAME, n, AtomicLong::get).description("Half messages stored and not yet ended")
                    .tag(RocketMqMeters.TOPIC, k.topic()).tag(RocketMqMeters.PROTOCOL, k.protocol())
                    .strongReference(true).register(registry);
            return n;
        });
    }
}
