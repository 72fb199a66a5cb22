package io.junction.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.junction.core.meta.TopicConfig;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * Arbitrary bytes on a Kafka connection through the real frame path ({@link KafkaWire}: the frame decoder capped at
 * 64 KiB, {@link KafkaConnection}, every handler, a real store): as they come, after a valid ApiVersions exchange, or as
 * the body of a correctly framed request of a served API and version. Whatever arrives, the broker answers or closes;
 * it never logs an error nobody handled, never leaves the connection open after the client left, and serves the next
 * client.
 */
class KafkaFramePathFuzzTest {
    private static final List<String> UNHANDLED = new ArrayList<>();
    private static final AtomicInteger COUNT = new AtomicInteger();
    private static final List<ApiKeys> SERVED = List.of(ApiKeys.API_VERSIONS, ApiKeys.METADATA, ApiKeys.PRODUCE,
            ApiKeys.FETCH, ApiKeys.LIST_OFFSETS, ApiKeys.INIT_PRODUCER_ID, ApiKeys.FIND_COORDINATOR, ApiKeys.JOIN_GROUP,
            ApiKeys.SYNC_GROUP, ApiKeys.HEARTBEAT, ApiKeys.LEAVE_GROUP, ApiKeys.OFFSET_COMMIT, ApiKeys.OFFSET_FETCH,
            ApiKeys.DESCRIBE_GROUPS, ApiKeys.LIST_GROUPS, ApiKeys.DESCRIBE_CLUSTER, ApiKeys.CREATE_TOPICS,
            ApiKeys.DELETE_TOPICS, ApiKeys.CREATE_PARTITIONS, ApiKeys.DESCRIBE_CONFIGS, ApiKeys.DELETE_RECORDS);
    private static KafkaWire wire;

    private static synchronized void startOnce() throws Exception {
        if (wire != null) {
            return;
        }
        final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        final AppenderBase<ILoggingEvent> counter = new AppenderBase<>() {
            @Override
            protected void append(final ILoggingEvent event) {
                if (event.getThrowableProxy() != null) {
                    synchronized (UNHANDLED) {
                        UNHANDLED.add(event.getFormattedMessage() + ": " + event.getThrowableProxy().getClassName()
                                + ": " + event.getThrowableProxy().getMessage());
                    }
                    COUNT.incrementAndGet();
                }
            }
        };
        counter.setContext(root.getLoggerContext());
        counter.start();
        root.addAppender(counter);
        wire = KafkaWire.start(KafkaWire.settings(64 * 1024));
        wire.store.topics().createOrUpdate(TopicConfig.of("t", 2)).get(10, TimeUnit.SECONDS);
        Runtime.getRuntime().addShutdownHook(new Thread(wire::close));
    }

    /** The broker starts before the first input, so its start-up never counts against an input's time limit. */
    @BeforeAll
    static void startBroker() throws Exception {
        startOnce();
    }

    @Timeout(1) // while fuzzing: an input that takes over a second is a hang finding (see junit-platform.properties)
    @FuzzTest(maxDuration = "10m")
    void arbitraryBytes(final FuzzedDataProvider data) throws Exception {
        startOnce();
        final int mode = data.consumeInt(0, 2);
        final KafkaWire.Client client = wire.connect();
        if (mode == 1) {
            client.send(ApiKeys.API_VERSIONS, (short) 3, new ApiVersionsRequestData()
                    .setClientSoftwareName("fuzz").setClientSoftwareVersion("1"));
        }
        if (mode == 2) {
            final ApiKeys api = SERVED.get(data.consumeInt(0, SERVED.size() - 1));
            final short version = data.consumeShort(api.oldestVersion(), api.latestVersion());
            final byte[] rest = data.consumeRemainingAsBytes();
            final ByteBuffer frame = ByteBuffer.allocate(8 + rest.length);
            frame.putShort(api.id).putShort(version).putInt(COUNT.get()).put(rest).flip();
            client.writeFrame(frame.remaining(), frame);
        } else {
            client.writeRaw(data.consumeRemainingAsBytes());
        }
        client.channel.flush();
        client.close();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!wire.connections.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(wire.connections.size()).as("server connections still open after the client closed").isZero();
        synchronized (UNHANDLED) {
            assertThat(COUNT.get()).as("errors nobody handled: %s", UNHANDLED).isZero();
        }
    }
}
