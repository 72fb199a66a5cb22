package io.junction.conformance.mqtt;

import static io.junction.conformance.mqtt.Clients.bytes;
import static io.junction.conformance.mqtt.Clients.publishes;
import static io.junction.conformance.mqtt.Clients.receive;
import static io.junction.conformance.mqtt.Clients.texts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import com.hivemq.client.mqtt.mqtt5.message.subscribe.Mqtt5RetainHandling;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** MQTT 5 section 3.3.1.3 (RETAIN) and the retain subscription options of 3.8.3.1, across a broker restart. */
@WithBroker(settings = {"mqtt.connect-timeout-ms=1000", "mqtt.max-packet-size=64k"})
class Chapter3_3_1_RetainIT {
    private static final String RETAINED_TOPIC = "%MQTT%RETAINED";
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    @Test
    void shouldKeepTheLastRetainedMessagePerTopicDurablyAndClearItWithAnEmptyPayload() throws Exception {
        final Mqtt5BlockingClient pub = Clients.v5(broker, "retain-pub");
        pub.publishWith().topic("status/dev1").qos(MqttQos.AT_LEAST_ONCE).retain(true).payload(bytes("old")).send();
        pub.publishWith().topic("status/dev1").qos(MqttQos.AT_LEAST_ONCE).retain(true).payload(bytes("online"))
                .userProperties().add("fw", "1.2").applyUserProperties().send();
        pub.publishWith().topic("status/dev2").qos(MqttQos.AT_LEAST_ONCE).retain(true).payload(bytes("offline"))
                .send();
        pub.publishWith().topic("status/dev3").qos(MqttQos.AT_LEAST_ONCE).retain(true).payload(bytes("gone")).send();
        pub.publishWith().topic("status/dev3").qos(MqttQos.AT_LEAST_ONCE).retain(true).payload(new byte[0]).send();
        pub.publishWith().topic("status/dev4").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("not retained")).send();
        pub.disconnect();

        broker.restart();

        final Mqtt5BlockingClient sub = Clients.v5(broker, "retain-sub");
        try (var in = publishes(sub)) {
            sub.subscribeWith().topicFilter("status/+").qos(MqttQos.AT_LEAST_ONCE).send();
            final List<Mqtt5Publish> got = receive(in, 2);
            assertThat(texts(got)).containsExactlyInAnyOrder("online", "offline");
            assertThat(got).allMatch(Mqtt5Publish::isRetain);
            final Mqtt5Publish dev1 = got.stream().filter(p -> Clients.text(p).equals("online")).findFirst()
                    .orElseThrow();
            assertThat(dev1.getTopic().toString()).isEqualTo("status/dev1");
            assertThat(dev1.getUserProperties().asList()).hasSize(1);
            Clients.assertNoMore(in, 500);
        } finally {
            sub.disconnect();
        }
    }

    @Test
    void shouldSendEveryRetainedMessageOfAWideWildcardOnceAndBeforeNewOnes() throws Exception {
        // More than the session turns into deliveries at a time and writes per event-loop turn: they come in pages.
        final int count = 2_000;
        final Mqtt5BlockingClient pub = Clients.v5(broker, "wide-pub");
        final var async = pub.toAsync();
        final List<java.util.concurrent.CompletableFuture<?>> sent = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) {
            sent.add(async.publishWith().topic("wide/dev" + i).qos(MqttQos.AT_LEAST_ONCE).retain(true)
                    .payload(bytes("r" + i)).send());
        }
        sent.forEach(java.util.concurrent.CompletableFuture::join);
        final Mqtt5BlockingClient sub = Clients.v5(broker, "wide-sub");
        try (var in = publishes(sub)) {
            sub.subscribeWith().topicFilter("wide/#").qos(MqttQos.AT_LEAST_ONCE).send();
            pub.publishWith().topic("wide/live").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("live")).send();
            final List<Mqtt5Publish> got = receive(in, count + 1);
            assertThat(got.subList(0, count)).allMatch(Mqtt5Publish::isRetain);
            assertThat(texts(got.subList(0, count))).doesNotHaveDuplicates().hasSize(count);
            assertThat(Clients.text(got.get(count))).isEqualTo("live");
            assertThat(got.get(count).isRetain()).isFalse();
            Clients.assertNoMore(in, 300);
        } finally {
            pub.disconnect();
            sub.disconnect();
        }
    }

    @Test
    void shouldHonourRetainHandlingAndRetainAsPublished() throws Exception {
        final Mqtt5BlockingClient pub = Clients.v5(broker, "rh-pub");
        pub.publishWith().topic("rh/x").qos(MqttQos.AT_LEAST_ONCE).retain(true).payload(bytes("kept")).send();
        final Mqtt5BlockingClient never = Clients.v5(broker, "rh-never");
        final Mqtt5BlockingClient rap = Clients.v5(broker, "rh-rap");
        try (var neverIn = publishes(never); var rapIn = publishes(rap)) {
            never.subscribeWith().topicFilter("rh/#").qos(MqttQos.AT_LEAST_ONCE)
                    .retainHandling(Mqtt5RetainHandling.DO_NOT_SEND).send();
            rap.subscribeWith().topicFilter("rh/#").qos(MqttQos.AT_LEAST_ONCE).retainAsPublished(true).send();
            assertThat(receive(rapIn, 1).get(0).isRetain()).isTrue(); // the stored retained message
            Clients.assertNoMore(neverIn, 300);
            pub.publishWith().topic("rh/x").qos(MqttQos.AT_LEAST_ONCE).retain(true).payload(bytes("live")).send();
            final Mqtt5Publish live = receive(neverIn, 1).get(0);
            assertThat(live.isRetain()).isFalse(); // normal delivery clears the flag...
            assertThat(receive(rapIn, 1).get(0).isRetain()).isTrue(); // ...unless retain-as-published
        } finally {
            pub.disconnect();
            never.disconnect();
            rap.disconnect();
        }
    }

    @Test
    void shouldKeepTheLatestRetainedMessagesThroughCompactionAndARestart() throws Exception {
        // Its own broker, checking for compaction five times a second instead of once a minute.
        try (RunningBroker compacting = RunningBroker.builder().set("mqtt.connect-timeout-ms", "1000")
                .set("mqtt.max-packet-size", "64k").set("mqtt.compaction-check-ms", "200").start()) {
            final Mqtt5BlockingClient pub = Clients.v5(compacting, "fleet-pub");
            final int updates = 1200; // more superseded records than the 1024 the log tolerates before compacting
            for (int i = 0; i < updates; i++) {
                pub.publishWith().topic("fleet/dev" + (i % 3)).qos(MqttQos.AT_LEAST_ONCE).retain(true)
                        .payload(bytes("v" + i)).send();
            }
            pub.publishWith().topic("fleet/dev2").qos(MqttQos.AT_LEAST_ONCE).retain(true).payload(new byte[0]).send();
            pub.disconnect();
            await().atMost(Duration.ofSeconds(30)).until(() -> compacting.process().stdout()
                    .contains(RETAINED_TOPIC + ": compacted to ")); // during the updates or after the clear

            compacting.restart();

            final Mqtt5BlockingClient sub = Clients.v5(compacting, "fleet-sub");
            try (var in = publishes(sub)) {
                sub.subscribeWith().topicFilter("fleet/+").qos(MqttQos.AT_LEAST_ONCE).send();
                final List<Mqtt5Publish> got = receive(in, 2);
                assertThat(got).extracting(p -> p.getTopic().toString() + "=" + Clients.text(p))
                        .containsExactlyInAnyOrder("fleet/dev0=v1197", "fleet/dev1=v1198");
                Clients.assertNoMore(in, 500);
            } finally {
                sub.disconnect();
            }
        }
    }
}
