package io.junction.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.meta.TopicConfig;
import io.junction.spi.clients.ClientRegistry;
import io.junction.spi.fuzz.LocalChannelHarness;
import io.junction.tenancy.AccessControl;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;

/**
 * Arbitrary bytes on a Kafka connection through the real frame path (the pipeline {@link KafkaFrontEnd#initPipeline}
 * builds: the frame decoder capped at {@value #MAX_REQUEST} bytes, small enough for fuzz-sized inputs to cross it,
 * {@link KafkaConnection}, every handler) over a real store, on the shared {@link LocalChannelHarness}.
 *
 * <p>The first input byte picks what the rest becomes: 0 raw bytes; 1 raw bytes after a valid ApiVersions exchange;
 * 2 the body of a correctly framed request of a served API and version; 3 a request header naming an API key or
 * version that is not served; 4 a frame whose size prefix is negative or over the cap, then the rest.
 *
 * <p>For every input: nothing logs an error nobody handled or a leak; the frame decoder holds at most one frame up to
 * the cap; a stream that breaks framing (a size outside [8, cap], an unknown API key) is closed by the server on its
 * own; an ApiVersions request in a version not served is answered with UNSUPPORTED_VERSION, any other request in a
 * version not served closes the connection; the server side closes once the client left and the connection gauge
 * returns to zero; a fresh client's ApiVersions and Metadata are answered.
 */
@Tag("fuzz")
class KafkaFramePathFuzzTest {
    static final int MAX_REQUEST = 1024;
    private static final String TOPIC = "t";
    private static final List<ApiKeys> SERVED = List.of(ApiKeys.API_VERSIONS, ApiKeys.METADATA, ApiKeys.PRODUCE,
            ApiKeys.FETCH, ApiKeys.LIST_OFFSETS, ApiKeys.INIT_PRODUCER_ID, ApiKeys.FIND_COORDINATOR, ApiKeys.JOIN_GROUP,
            ApiKeys.SYNC_GROUP, ApiKeys.HEARTBEAT, ApiKeys.LEAVE_GROUP, ApiKeys.OFFSET_COMMIT, ApiKeys.OFFSET_FETCH,
            ApiKeys.DESCRIBE_GROUPS, ApiKeys.LIST_GROUPS, ApiKeys.DESCRIBE_CLUSTER, ApiKeys.CREATE_TOPICS,
            ApiKeys.DELETE_TOPICS, ApiKeys.CREATE_PARTITIONS, ApiKeys.DESCRIBE_CONFIGS, ApiKeys.DELETE_RECORDS);
    private static final AtomicInteger CORRELATIONS = new AtomicInteger();

    private static MessageStore store;
    private static KafkaApis apis;
    private static LocalChannelHarness harness;

    private static synchronized void startOnce() throws Exception {
        if (harness != null) {
            return;
        }
        final Path dir = Files.createTempDirectory("kafka-fuzz");
        store = MessageStore.open(StoreConfig.builder(dir).segmentSize(64 << 20).maxMessageSize(1 << 20)
                .flushInterval(Duration.ofMillis(50)).diskFullRatio(1.01).maxDiskUsedRatio(1.01).build());
        store.topics().createOrUpdate(TopicConfig.of(TOPIC, 2)).get(10, TimeUnit.SECONDS);
        final KafkaSettings settings = KafkaWire.settings(MAX_REQUEST);
        final GroupCoordinator coordinator = new GroupCoordinator(store, settings.initialRebalanceDelayMs(),
                System::currentTimeMillis);
        apis = new KafkaApis(store, settings, coordinator, AccessControl.open());
        apis.recover().get(10, TimeUnit.SECONDS);
        harness = new LocalChannelHarness("kafka").serve(KafkaFrontEnd.WATER_MARK,
                ch -> KafkaFrontEnd.initPipeline(ch.pipeline(), settings, apis, "127.0.0.1", 9092,
                        new ClientRegistry()));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            harness.close();
            coordinator.close();
            store.close();
            KafkaWire.deleteTree(dir);
        }));
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
        final int mode = data.consumeInt(0, 4);
        final KafkaWire.Client client = new KafkaWire.Client();
        try (LocalChannelHarness.Connection c = harness.connect(client.handler())) {
            switch (mode) {
                case 1 -> {
                    final RequestHeader h = client.send(ApiKeys.API_VERSIONS, (short) 3, new ApiVersionsRequestData()
                            .setClientSoftwareName("fuzz").setClientSoftwareVersion("1"));
                    assertThat(client.receive(h)).isInstanceOf(ApiVersionsResponse.class);
                    sendChecked(c, data.consumeRemainingAsBytes());
                }
                case 2 -> {
                    final ApiKeys api = SERVED.get(data.consumeInt(0, SERVED.size() - 1));
                    final short version = data.consumeShort(api.oldestVersion(), api.latestVersion());
                    sendChecked(c, frame(api.id, version, data.consumeRemainingAsBytes()));
                }
                case 3 -> unservedRequest(c, client, data);
                case 4 -> {
                    final int size = data.consumeBoolean() ? data.consumeInt(Integer.MIN_VALUE, -1)
                            : data.consumeInt(MAX_REQUEST - 3, Integer.MAX_VALUE);
                    final byte[] rest = data.consumeRemainingAsBytes();
                    sendChecked(c, ByteBuffer.allocate(4 + rest.length).putInt(size).put(rest).array());
                }
                default -> sendChecked(c, data.consumeRemainingAsBytes());
            }
        }
        assertServed();
        harness.assertClean();
    }

    /** Sends the stream; the decoder stays bounded, and a stream that breaks framing gets the connection closed. */
    private static void sendChecked(final LocalChannelHarness.Connection c, final byte[] stream) throws Exception {
        c.send(stream);
        assertThat(c.buffered(KafkaFrontEnd.FRAMES)).as("bytes held by the frame decoder")
                .isLessThanOrEqualTo(MAX_REQUEST);
        if (breaksFraming(stream)) {
            assertThat(c.serverClosed()).as("the server closes a stream whose framing is broken").isTrue();
        }
    }

    /**
     * A request header with an API key or version the broker does not serve, then fuzzed bytes: ApiVersions is
     * answered with UNSUPPORTED_VERSION (clients probe with their newest version), anything else closes.
     */
    private static void unservedRequest(final LocalChannelHarness.Connection c, final KafkaWire.Client client,
                                        final FuzzedDataProvider data) throws Exception {
        final short key = data.consumeBoolean() ? ApiKeys.API_VERSIONS.id : data.consumeShort();
        final short version = data.consumeShort();
        final boolean known = ApiKeys.hasId(key);
        if (known && apis.supports(ApiKeys.forId(key), version)) {
            sendChecked(c, frame(key, version, data.consumeRemainingAsBytes())); // served after all: any outcome
            return;
        }
        final int correlation = CORRELATIONS.incrementAndGet();
        final byte[] rest = data.consumeBytes(MAX_REQUEST - 12); // the frame stays within the cap
        final byte[] header = ByteBuffer.allocate(4 + rest.length).putInt(correlation).put(rest).array();
        c.send(frame(key, version, header));
        if (known && key == ApiKeys.API_VERSIONS.id) {
            final ByteBuffer response = client.nextFrame(TimeUnit.SECONDS.toMillis(LocalChannelHarness.WAIT_SECONDS));
            assertThat(response).as("the answer to ApiVersions v%d", version).isNotNull();
            assertThat(response.getInt()).as("correlation id").isEqualTo(correlation);
            final ApiVersionsResponseData answer = ApiVersionsResponse.parse(new ByteBufferAccessor(response),
                    (short) 0).data();
            assertThat(answer.errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
        } else {
            assertThat(c.serverClosed()).as("the server closes on API key %d version %d", key, version).isTrue();
        }
    }

    /**
     * A new client's ApiVersions and Metadata are answered, Metadata naming this node. Inputs may have deleted the
     * topic or added partitions to it: only the broker and the topic's entry are fixed.
     */
    private static void assertServed() throws Exception {
        final KafkaWire.Client client = new KafkaWire.Client();
        try (LocalChannelHarness.Connection ignored = harness.connect(client.handler())) {
            final RequestHeader versions = client.send(ApiKeys.API_VERSIONS, (short) 3, new ApiVersionsRequestData()
                    .setClientSoftwareName("fuzz-check").setClientSoftwareVersion("1"));
            assertThat(((ApiVersionsResponse) client.receive(versions)).data().errorCode())
                    .isEqualTo(Errors.NONE.code());
            final RequestHeader metadata = client.send(ApiKeys.METADATA, (short) 12, new MetadataRequestData()
                    .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName(TOPIC))));
            final MetadataResponseData answer = ((MetadataResponse) client.receive(metadata)).data();
            final MetadataResponseData.MetadataResponseBroker node = answer.brokers().find(KafkaSettings.NODE_ID);
            assertThat(node).as("this node in %s", answer).isNotNull();
            assertThat(node.host() + ":" + node.port()).isEqualTo("127.0.0.1:9092");
            assertThat(answer.topics().find(TOPIC)).as("topic %s in %s", TOPIC, answer).isNotNull();
        }
    }

    /** A frame: size prefix, API key, version, then {@code rest} (the rest of the header and the body). */
    private static byte[] frame(final short apiKey, final short version, final byte[] rest) {
        return ByteBuffer.allocate(8 + rest.length).putInt(4 + rest.length).putShort(apiKey).putShort(version)
                .put(rest).array();
    }

    /**
     * Whether the stream holds, within its complete frames, one the connection cannot but close on: a size prefix
     * that is negative or over the cap (the frame decoder fails), a frame too short for a request header, or an
     * unknown API key. Frames before it may close the connection first, which is a close as well.
     */
    static boolean breaksFraming(final byte[] stream) {
        final ByteBuffer in = ByteBuffer.wrap(stream);
        while (in.remaining() >= 4) {
            final int size = in.getInt();
            if (size < 0 || size + 4L > MAX_REQUEST) {
                return true;
            }
            if (in.remaining() < size) {
                return false; // an incomplete last frame: the server waits for the rest
            }
            if (size < 8 || !ApiKeys.hasId(in.getShort(in.position()))) {
                return true;
            }
            in.position(in.position() + size);
        }
        return false;
    }
}
