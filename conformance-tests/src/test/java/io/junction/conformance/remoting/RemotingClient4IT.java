package io.junction.conformance.remoting;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.conformance.remoting.Client4Events.Event;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The RocketMQ 4.9.x Java client against the broker jar. The 4.9.x and 5.3.x clients cannot share a classpath, so the
 * 4.9.x client runs in a child JVM: module {@code conformance-rocketmq4} plays every scenario side by side in one run
 * and prints what it sent, received and was asked; each test here checks one scenario's lines.
 */
@WithBroker
class RemotingClient4IT {
    private static final String ALL_SCENARIOS = "send,push-concurrent,push-orderly,pull,delay,transaction,new-group,"
            + "orderly-global,orderly-partition,request";
    private static final int DRIVER_DEADLINE_SECONDS = 90;

    private static RunningBroker broker;
    private static Client4Events events;
    private static String output;
    private static int exitCode;

    @BeforeAll
    static void broker(final RunningBroker running) throws Exception {
        broker = running;
        final Path driverDir = Path.of(System.getProperty("rocketmq4.driver.dir", "../conformance-rocketmq4/target"));
        final Path jar = driverDir.resolve("rocketmq4-driver.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("no driver at " + jar.toAbsolutePath()
                    + ": run the build through the reactor so module conformance-rocketmq4 is packaged first");
        }
        final Path work = Files.createTempDirectory("rocketmq4-driver");
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final List<String> command = List.of(java, "-Xmx256m",
                "-Drocketmq.client.logRoot=" + work.resolve("logs"), "-Drocketmq.client.logLevel=WARN",
                "-cp", jar + File.pathSeparator + driverDir.resolve("lib") + File.separator + "*",
                "io.junction.conformance.rocketmq4.Rocketmq4Driver", broker.nameServer(),
                Names.unique("v4"), Integer.toString(DRIVER_DEADLINE_SECONDS), ALL_SCENARIOS);
        final Path out = work.resolve("stdout.txt");
        final Process child = new ProcessBuilder(command).redirectOutput(out.toFile())
                .redirectError(work.resolve("stderr.txt").toFile()).start();
        if (!child.waitFor(DRIVER_DEADLINE_SECONDS + 60, TimeUnit.SECONDS)) {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        exitCode = child.isAlive() ? -1 : child.exitValue();
        output = Files.readString(out, StandardCharsets.UTF_8) + "\n--- stderr ---\n"
                + Files.readString(work.resolve("stderr.txt"), StandardCharsets.UTF_8);
        events = Client4Events.parse(output);
    }

    @Test
    void shouldRunEveryScenarioWithThe49Client() {
        assertThat(events.select(e -> e.kind().equals("client"))).as(output).singleElement()
                .satisfies(e -> assertThat(e.get("version")).startsWith("V4_9_"));
        assertThat(events.select(e -> e.kind().equals("failed"))).as(output).isEmpty();
        assertThat(events.select(e -> e.kind().equals("done"))).as(output).extracting(e -> e.get("scenario"))
                .containsExactlyInAnyOrder(ALL_SCENARIOS.split(","));
        assertThat(exitCode).as(output).isZero();
    }

    @Test
    void shouldSendSyncAsyncOnewayAndBatchAndReadThemAllBack() {
        final List<Event> sent = events.of("sent", "send");
        assertThat(sent).as(output).hasSize(3 + 3 + 3 + 1);
        assertThat(sent).filteredOn(e -> !"oneway".equals(e.get("mode")))
                .allSatisfy(e -> assertThat(e.get("status")).isEqualTo("SEND_OK"));

        final List<Event> received = events.of("received", "send");
        assertThat(received).as(output).hasSize(19);
        final List<String> expected = new ArrayList<>();
        for (String mode : new String[] {"sync", "async", "oneway"}) {
            IntStream.range(0, 3).forEach(i -> expected.add(mode + "-" + i));
        }
        IntStream.range(0, 10).forEach(i -> expected.add("batch-" + i));
        assertThat(received).extracting(e -> e.get("body")).containsExactlyInAnyOrderElementsOf(expected);
        for (Event m : received) {
            final String[] modeAndIndex = m.get("body").split("-");
            assertThat(m.get("tags")).isEqualTo("Tag-" + modeAndIndex[0]);
            assertThat(m.get("keys")).isEqualTo("k-" + m.get("body"));
            assertThat(m.get("props")).isEqualTo("{i=" + modeAndIndex[1] + ", mode=" + modeAndIndex[0] + "}");
        }
        // Sync and async sends: the id and position the broker answered are where the message is.
        final Map<String, Event> byBody = new HashMap<>();
        received.forEach(e -> byBody.put(e.get("body"), e));
        for (Event s : sent) {
            if ("sync".equals(s.get("mode")) || "async".equals(s.get("mode"))) {
                final Event m = byBody.get(s.get("mode") + "-" + s.get("index"));
                assertThat(m.get("msgId")).isEqualTo(s.get("msgId"));
                assertThat(m.get("queue")).isEqualTo(s.get("queue"));
                assertThat(m.get("offset")).isEqualTo(s.get("offset"));
            }
        }
        // The batch: one queue, consecutive offsets, in order, with the ids the broker answered.
        final Event batch = sent.stream().filter(e -> "batch".equals(e.get("mode"))).findFirst().orElseThrow();
        final List<Event> members = IntStream.range(0, 10).mapToObj(i -> byBody.get("batch-" + i)).toList();
        assertThat(members).extracting(e -> e.get("queue")).containsOnly(batch.get("queue"));
        assertThat(members).extracting(e -> e.number("offset"))
                .containsExactlyElementsOf(IntStream.range(0, 10).mapToObj(i -> batch.number("offset") + i).toList());
        assertThat(members).extracting(e -> e.get("msgId"))
                .containsExactlyElementsOf(Arrays.asList(batch.get("msgId").split(",")));
    }

    @Test
    void shouldPushTagAOnlyAndRedeliverWhatTheListenerAskedToRetry() {
        final List<Event> received = events.of("received", "push-concurrent");
        assertThat(received).as(output).extracting(e -> e.get("tags")).containsOnly("A");
        final List<String> deliveries = received.stream().map(e -> e.get("body") + "#" + e.get("reconsume")).toList();
        final List<String> expected = new ArrayList<>(List.of("A-0#0", "A-0#1"));
        IntStream.range(1, 10).forEach(i -> expected.add("A-" + i + "#0"));
        assertThat(deliveries).containsExactlyInAnyOrderElementsOf(expected);
        final Event first = received.stream().filter(e -> e.get("body").equals("A-0")).findFirst().orElseThrow();
        final Event retry = received.stream().filter(e -> e.get("body").equals("A-0") && e.number("reconsume") == 1)
                .findFirst().orElseThrow();
        assertThat(retry.get("msgId")).isEqualTo(first.get("msgId"));
        assertThat(retry.number("at") - first.number("at")).as("delay level 1 is one second").isGreaterThan(800);
    }

    @Test
    void shouldAnswerSynchronousAndCallbackRequests() {
        assertThat(events.of("replied", "request")).as(output)
                .extracting(e -> e.get("mode") + ":" + e.get("body") + ":" + e.get("type"))
                .containsExactlyInAnyOrder("sync:pong:sync-0:reply", "sync:pong:sync-1:reply",
                        "sync:pong:sync-2:reply", "callback:pong:callback-0:reply", "callback:pong:callback-1:reply");
        assertThat(events.of("answered", "request")).extracting(e -> e.get("status"))
                .hasSize(5).containsOnly("SEND_OK");
    }

    @Test
    void shouldPushEachOrderInSequenceFromOneQueue() {
        final List<Event> received = events.of("received", "push-orderly");
        assertThat(received).as(output).hasSize(30);
        final Map<String, List<Event>> byOrder = new HashMap<>();
        for (Event e : received) {
            final String order = e.get("body").substring(0, e.get("body").indexOf('-'));
            byOrder.computeIfAbsent(order, k -> new ArrayList<>()).add(e);
        }
        assertThat(byOrder).containsOnlyKeys("o0", "o1", "o2");
        byOrder.forEach((order, steps) -> {
            assertThat(steps).extracting(e -> e.get("body")).as(order)
                    .containsExactlyElementsOf(IntStream.range(0, 10).mapToObj(i -> order + "-" + i).toList());
            assertThat(steps).extracting(e -> e.get("queue")).as(order).containsOnly(steps.get(0).get("queue"));
            assertThat(steps).extracting(e -> e.get("props"))
                    .containsExactlyElementsOf(IntStream.range(0, 10)
                            .mapToObj(i -> "{order=" + order.substring(1) + ", step=" + i + "}").toList());
        });
    }

    @Test
    void shouldPullByTagCommitOffsetsAndSeekAnAssignedQueue() {
        final List<Event> pulled = events.select(e -> e.kind().equals("received") && "pull".equals(e.get("via")));
        assertThat(pulled).as(output).extracting(e -> e.get("body"))
                .containsExactlyInAnyOrderElementsOf(IntStream.range(0, 8).mapToObj(i -> "P-" + i).toList());
        final Map<String, String> max = new HashMap<>();
        events.of("max", "pull").forEach(e -> max.put(e.get("queue"), e.get("offset")));
        final Map<String, String> committed = new HashMap<>();
        events.of("committed", "pull").forEach(e -> committed.put(e.get("queue"), e.get("offset")));
        assertThat(committed).as("committed offsets read back = each queue's end").isEqualTo(max).isNotEmpty();
        assertThat(max.values().stream().mapToLong(Long::parseLong).sum()).isEqualTo(16);

        final List<Event> assigned = events.select(e -> e.kind().equals("received")
                && "lite-pull-assign".equals(e.get("via")));
        assertThat(assigned).hasSize(15); // all 16 but queue 0's first: seek(queue 0, 1)
        assertThat(assigned).noneMatch(e -> e.get("queue").equals("0") && e.get("offset").equals("0"));
        assertThat(assigned).extracting(e -> e.get("body")).doesNotHaveDuplicates();
    }

    @Test
    void shouldDeliverADelayLevelTwoMessageAfterFiveSeconds() {
        final Map<String, Event> sent = new HashMap<>();
        events.of("sent", "delay").forEach(e -> sent.put(e.get("body"), e));
        final Map<String, Event> received = new HashMap<>();
        events.of("received", "delay").forEach(e -> received.put(e.get("body"), e));
        assertThat(received).as(output).containsOnlyKeys("warm-up", "now", "delayed");
        final long delayed = received.get("delayed").number("at") - sent.get("delayed").number("at");
        assertThat(delayed).as("level 2 = 5 s").isBetween(4_500L, 15_000L);
        assertThat(received.get("now").number("at")).isLessThan(received.get("delayed").number("at"));
        assertThat(received.get("delayed").get("tags")).isEqualTo("D");
        // Delivered as RocketMQ delivers it: with the level it was sent with (getDelayTimeLevel()).
        assertThat(received.get("delayed").number("delayLevel")).isEqualTo(2);
        assertThat(received.get("now").number("delayLevel")).isZero();
    }

    @Test
    void shouldDeliverEverythingSentBeforeANewGroupFirstStarted() {
        final List<String> sent = events.of("sent", "new-group").stream().map(e -> e.get("body")).toList();
        assertThat(sent).as(output).hasSize(10);
        for (String via : new String[] {"push-concurrent", "push-orderly"}) {
            assertThat(events.of("received", "new-group")).filteredOn(e -> via.equals(e.get("via")))
                    .extracting(e -> e.get("body")).as(via).containsExactlyInAnyOrderElementsOf(sent);
        }
    }

    @Test
    void shouldConsumeAGlobalOrderSentAfterTheOrderlyConsumerStarted() {
        final List<Event> received = events.of("received", "orderly-global");
        assertThat(received).as(output).extracting(e -> e.get("queue")).containsOnly("0");
        assertThat(received).extracting(e -> e.get("body"))
                .containsExactlyElementsOf(IntStream.range(0, 100).mapToObj(Integer::toString).toList());
    }

    @Test
    void shouldConsumeEveryPartitionInOrderSentAfterTheOrderlyConsumerStarted() {
        final Map<String, List<String>> sent = new TreeMap<>();
        events.of("sent", "orderly-partition").forEach(e ->
                sent.computeIfAbsent(e.get("queue"), q -> new ArrayList<>()).add(e.get("body")));
        final Map<String, List<String>> received = new TreeMap<>();
        events.of("received", "orderly-partition").forEach(e ->
                received.computeIfAbsent(e.get("queue"), q -> new ArrayList<>()).add(e.get("body")));
        assertThat(sent.values().stream().mapToInt(List::size).sum()).as(output).isEqualTo(240);
        assertThat(sent).hasSizeGreaterThan(1);
        assertThat(received).isEqualTo(sent);
    }

    @Test
    void shouldCheckBackTheUnknownTransactionAndDeliverOnlyCommittedMessages() {
        assertThat(events.of("sent", "transaction")).as(output).extracting(e -> e.get("body") + ":" + e.get("local"))
                .containsExactly("commit:COMMIT_MESSAGE", "rollback:ROLLBACK_MESSAGE", "unknown:UNKNOW");
        final List<Event> checked = events.of("checked", "transaction");
        assertThat(checked).extracting(e -> e.get("body")).containsOnly("unknown").isNotEmpty();
        final String unknownTx = events.of("sent", "transaction").get(2).get("transactionId");
        assertThat(checked.get(0).get("transactionId")).isEqualTo(unknownTx);
        final List<Event> received = events.of("received", "transaction");
        assertThat(received).extracting(e -> e.get("body")).containsExactlyInAnyOrder("init", "commit", "unknown");
        assertThat(received).filteredOn(e -> !e.get("body").equals("init")).extracting(e -> e.get("props"))
                .containsExactlyInAnyOrder("{step=commit}", "{step=unknown}");
    }
}
