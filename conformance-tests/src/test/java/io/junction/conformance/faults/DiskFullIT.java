package io.junction.conformance.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5PubAckException;
import com.hivemq.client.mqtt.mqtt5.message.publish.puback.Mqtt5PubAckReasonCode;
import io.junction.conformance.support.RocketMqClientLogs;
import io.junction.conformance.support.RunningBroker;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real full disk: the broker's data directory on a small tmpfs that the test fills with a ballast file. Every
 * protocol gets its own clear refusal (Remoting error with the reason, MQTT 5 PUBACK 0x97 quota exceeded, HTTP 503)
 * while the disk is full, sends succeed again once the ballast is gone, and after a SIGKILL every acknowledged
 * message is there with its exact bytes. Needs permission to mount a tmpfs (root in CI); skipped otherwise.
 */
@Tag("crash")
class DiskFullIT {
    private static final int FS_MIB = 64;
    private static final Duration WATCH = Duration.ofSeconds(10); // the broker looks at the disk every second

    static {
        RocketMqClientLogs.keepOutOfHome();
    }

    @TempDir
    Path dir;

    private Path fs;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void mountSmallDisk() throws Exception {
        fs = Files.createDirectories(dir.resolve("fs"));
        final Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=" + FS_MIB + "m", "tmpfs",
                fs.toString()).redirectErrorStream(true).start();
        final String output = new String(mount.getInputStream().readAllBytes());
        Assumptions.assumeTrue(mount.waitFor() == 0, "cannot mount a tmpfs here (" + output.trim() + ")");
    }

    @AfterEach
    void unmount() throws Exception {
        new ProcessBuilder("umount", "-l", fs.toString()).inheritIO().start().waitFor();
    }

    @Test
    void shouldRefuseWithEachProtocolsSignalWhileFullAndAcceptAgainWhenSpaceReturns() throws Exception {
        final Map<String, byte[]> acked = new HashMap<>();
        final RunningBroker broker = RunningBroker.builder().dataDir(fs.resolve("data"))
                .set("store.flush-mode", "SYNC")
                .set("store.segment-size", "8m")
                .set("store.queue-file-entries", "10000")
                .set("store.index-file-entries", "10000")
                .set("store.disk-max-used-ratio", "0.99") // keep every segment: this test is about refusals
                .start();
        try {
            final DefaultMQProducer producer = producer(broker);
            final Mqtt5BlockingClient mqtt = mqtt(broker);
            sendRemoting(producer, acked, "before", 50);
            assertThat(postEvent(broker, "e1")).isEqualTo(202);

            final Path ballast = fs.resolve("ballast");
            fill(ballast, fs);
            // Remoting: the send fails with the broker's reason. (Sends before the broker noticed may succeed.)
            final List<String> refused = new ArrayList<>();
            await("Remoting sends refused").atMost(WATCH).ignoreExceptions().untilAsserted(() -> {
                final String key = "attempt-" + refused.size();
                refused.add(key);
                assertThatThrownBy(() -> producer.send(message(key, new byte[100])))
                        .hasStackTraceContaining("disk usage is above");
            });
            final String refusedKey = refused.get(refused.size() - 1);
            // MQTT 5: PUBACK with reason 0x97 (quota exceeded), the connection stays up.
            assertThatThrownBy(() -> mqtt.publishWith().topic("dfm/x").qos(MqttQos.AT_LEAST_ONCE)
                    .payload(new byte[10]).send())
                    .isInstanceOfSatisfying(Mqtt5PubAckException.class, e -> assertThat(
                            e.getMqttMessage().getReasonCode()).isEqualTo(Mqtt5PubAckReasonCode.QUOTA_EXCEEDED));
            assertThat(mqtt.getState().isConnected()).isTrue();
            // HTTP: 503 Service Unavailable.
            assertThat(postEvent(broker, "e2")).isEqualTo(503);

            Files.delete(ballast);
            await("sends accepted again").atMost(WATCH).ignoreExceptions().untilAsserted(() ->
                    assertThat(producer.send(message("probe", new byte[10])).getSendStatus())
                            .isEqualTo(SendStatus.SEND_OK));
            sendRemoting(producer, acked, "after", 50);
            mqtt.publishWith().topic("dfm/x").qos(MqttQos.AT_LEAST_ONCE).payload(new byte[10]).send();
            assertThat(postEvent(broker, "e3")).isEqualTo(202);
            producer.shutdown();
            mqtt.disconnect();

            broker.kill();
            broker.startOnSamePorts();
            final Map<String, byte[]> found = drain(broker, acked.keySet());
            for (Map.Entry<String, byte[]> e : acked.entrySet()) {
                assertThat(found.get(e.getKey())).as("acknowledged %s after the restart", e.getKey()).isNotNull();
                assertThat(Arrays.equals(found.get(e.getKey()), e.getValue())).as("%s intact", e.getKey()).isTrue();
            }
            assertThat(found).as("a refused send is not stored").doesNotContainKey(refusedKey);
        } finally {
            broker.close();
        }
    }


    /** Writes a ballast file until the file system is 95 % used (above the broker's 90 % refusal threshold). */
    private static void fill(final Path ballast, final Path mount) throws IOException {
        final FileStore store = Files.getFileStore(mount);
        final long target = (long) (store.getTotalSpace() * 0.95) - (store.getTotalSpace() - store.getUsableSpace());
        try (RandomAccessFile f = new RandomAccessFile(ballast.toFile(), "rw")) {
            final byte[] chunk = new byte[1 << 20];
            Arrays.fill(chunk, (byte) 7); // real bytes: tmpfs would not count a sparse file
            for (long written = 0; written < target; written += chunk.length) {
                f.write(chunk, 0, (int) Math.min(chunk.length, target - written));
            }
        }
    }

    private static void sendRemoting(final DefaultMQProducer producer, final Map<String, byte[]> acked,
                                     final String prefix, final int count) throws Exception {
        for (int i = 0; i < count; i++) {
            final String key = prefix + "-" + i;
            final byte[] body = (key + " " + "x".repeat(2000)).getBytes();
            assertThat(producer.send(message(key, body)).getSendStatus()).isEqualTo(SendStatus.SEND_OK);
            acked.put(key, body);
        }
    }

    private static Message message(final String key, final byte[] body) {
        return new Message("dfr", "t", key, body);
    }

    private int postEvent(final RunningBroker broker, final String id) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(broker.httpBase() + "/topics/dfh"))
                .header("ce-specversion", "1.0").header("ce-id", id).header("ce-source", "/disk-full-it")
                .header("ce-type", "test.disk").header("content-type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString("event " + id)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static DefaultMQProducer producer(final RunningBroker broker) throws Exception {
        final DefaultMQProducer producer = new DefaultMQProducer("df-producers");
        producer.setNamesrvAddr(broker.nameServer());
        producer.setInstanceName("df-p-" + System.nanoTime());
        producer.setSendMsgTimeout(5000);
        producer.setRetryTimesWhenSendFailed(0);
        producer.start();
        return producer;
    }

    private static Mqtt5BlockingClient mqtt(final RunningBroker broker) {
        final Mqtt5BlockingClient c = MqttClient.builder().useMqttVersion5().identifier("df-mqtt")
                .serverHost("127.0.0.1").serverPort(broker.mqttPort()).buildBlocking();
        c.connect();
        return c;
    }

    /** Reads the topic from its start until every expected key arrived (or a minute passed). */
    private static Map<String, byte[]> drain(final RunningBroker broker, final Set<String> expected)
            throws Exception {
        final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer("df-drain-" + System.nanoTime());
        consumer.setNamesrvAddr(broker.nameServer());
        consumer.setInstanceName("df-c-" + System.nanoTime());
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe("dfr", "*");
        consumer.start();
        try {
            final Map<String, byte[]> found = new HashMap<>();
            final long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!found.keySet().containsAll(expected) && System.nanoTime() < end) {
                for (MessageExt m : consumer.poll(500)) {
                    found.put(m.getKeys(), m.getBody());
                }
            }
            return found;
        } finally {
            consumer.shutdown();
        }
    }
}
