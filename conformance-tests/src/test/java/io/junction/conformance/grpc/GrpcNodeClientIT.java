package io.junction.conformance.grpc;

import static io.junction.conformance.grpc.GrpcClients.unique;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Node.js 5.x SDK (rocketmq-client-nodejs, pinned in {@code conformance-tests/node}) against the gRPC port, in its
 * default plaintext: a Producer sends, recalls a delayed message, and a SimpleConsumer receives and acks. The script
 * prints one line per outcome, which this test checks. Skipped when node or the installed package is absent
 * ({@code npm ci --prefix conformance-tests/node}, as .ci/run does).
 */
@WithBroker
class GrpcNodeClientIT {
    static final Path NODE_MODULES = Path.of("node", "node_modules").toAbsolutePath();
    static final int COUNT = 5;

    /** Lines: {@code SENT id}, {@code RECALLED id delayedId}, {@code GOT id tag keys index body}, {@code DONE}. */
    static final String SCRIPT = """
            'use strict';
            const { Producer, SimpleConsumer } = require('rocketmq-client-nodejs');
            const [endpoints, topic, group, countText] = process.argv.slice(2);
            const count = Number(countText);
            const quiet = { info() {}, debug() {}, warn() {}, error(...args) { console.error(...args); } };

            async function main() {
              const producer = new Producer({ endpoints, namespace: '', topics: [topic], logger: quiet });
              await producer.startup();
              for (let i = 0; i < count; i++) {
                const receipt = await producer.send({ topic, tag: 'node', keys: ['key-' + i],
                  properties: new Map([['index', String(i)]]), body: Buffer.from('node-' + i) });
                console.log('SENT ' + receipt.messageId);
              }
              const deliverAt = Date.now() + 2000;
              const delayed = await producer.send({ topic, tag: 'node', body: Buffer.from('recalled'),
                deliveryTimestamp: new Date(deliverAt) });
              const recall = await producer.recallMessage(topic, delayed.recallHandle);
              console.log('RECALLED ' + recall.messageId + ' ' + delayed.messageId);

              const consumer = new SimpleConsumer({ endpoints, namespace: '', consumerGroup: group,
                subscriptions: new Map().set(topic, 'node'), awaitDuration: 1000, logger: quiet });
              await consumer.startup();
              // until every message came and the recalled one's time is well past
              const end = Date.now() + 30000;
              let got = 0;
              while (Date.now() < end && (got < count || Date.now() < deliverAt + 2000)) {
                for (const m of await consumer.receive(16, 20000)) {
                  console.log(['GOT', m.messageId, m.tag, m.keys.join(','), m.properties.get('index'),
                    m.body.toString()].join(' '));
                  await consumer.ack(m);
                  got++;
                }
              }
              await consumer.shutdown();
              await producer.shutdown();
              console.log('DONE');
            }

            main().then(() => process.exit(0), e => { console.error('FAILED', e); process.exit(2); });
            """;

    @TempDir
    static Path dir;
    static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    private static boolean nodeAvailable() {
        try {
            final Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
            return p.waitFor(20, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Test
    void shouldSendRecallReceiveAndAckWithTheNodeClient() throws Exception {
        assumeTrue(nodeAvailable(), "node is not installed");
        assumeTrue(Files.isDirectory(NODE_MODULES.resolve("rocketmq-client-nodejs")),
                "rocketmq-client-nodejs is not installed (npm ci --prefix conformance-tests/node)");
        final Path script = dir.resolve("grpc-smoke.js");
        Files.writeString(script, SCRIPT);
        final Path output = dir.resolve("grpc-smoke.out");
        final ProcessBuilder pb = new ProcessBuilder("node", script.toString(),
                "127.0.0.1:" + broker.setting("grpc.port"), unique("grpc-node"), unique("grpc-node-g"),
                Integer.toString(COUNT))
                .redirectErrorStream(true).redirectOutput(output.toFile());
        pb.environment().put("NODE_PATH", NODE_MODULES.toString());
        pb.environment().put("HOME", dir.toString()); // the SDK's log file goes under $HOME/logs
        final Process node = pb.start();
        final boolean finished = node.waitFor(90, TimeUnit.SECONDS);
        if (!finished) {
            node.destroyForcibly();
        }
        final List<String> lines = Files.readAllLines(output, StandardCharsets.UTF_8);
        assertThat(finished).as("node finished; output: %s", lines).isTrue();
        assertThat(node.exitValue()).as("node exit code; output: %s", lines).isZero();

        final List<String> sent = new ArrayList<>();
        final Map<String, String[]> got = new TreeMap<>();
        int gotLines = 0;
        String[] recalled = null;
        for (String line : lines) {
            final String[] f = line.split(" ");
            switch (f[0]) {
                case "SENT" -> sent.add(f[1]);
                case "RECALLED" -> recalled = f;
                case "GOT" -> {
                    got.put(f[1], f);
                    gotLines++;
                }
                default -> {
                    // the SDK's own output, if any
                }
            }
        }
        assertThat(lines).as("output").contains("DONE");
        assertThat(sent).hasSize(COUNT).doesNotHaveDuplicates();
        // each sent message exactly once, with its tag, key, property and body; the recalled one never
        assertThat(gotLines).as("deliveries; output: %s", lines).isEqualTo(COUNT);
        assertThat(got.keySet()).containsExactlyInAnyOrderElementsOf(sent);
        for (String[] f : got.values()) {
            final int i = Integer.parseInt(f[4]);
            assertThat(f[1]).isEqualTo(sent.get(i));
            assertThat(f[2]).isEqualTo("node");
            assertThat(f[3]).isEqualTo("key-" + i);
            assertThat(f[5]).isEqualTo("node-" + i);
        }
        assertThat(recalled).isNotNull();
        assertThat(recalled[1]).isEqualTo(recalled[2]);
        assertThat(got).doesNotContainKey(recalled[2]);
    }
}
