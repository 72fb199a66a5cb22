package io.junction.conformance.mqtt;

import static io.junction.conformance.mqtt.Clients.bytes;
import static io.junction.conformance.mqtt.Clients.publishes;
import static io.junction.conformance.mqtt.Clients.receive;
import static io.junction.conformance.mqtt.Clients.texts;
import static org.assertj.core.api.Assertions.assertThat;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import com.hivemq.client.mqtt.mqtt3.message.subscribe.suback.Mqtt3SubAckReturnCode;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import com.hivemq.client.mqtt.mqtt5.message.subscribe.suback.Mqtt5SubAck;
import com.hivemq.client.mqtt.mqtt5.message.subscribe.suback.Mqtt5SubAckReasonCode;
import com.hivemq.client.mqtt.mqtt5.message.unsubscribe.unsuback.Mqtt5UnsubAck;
import com.hivemq.client.mqtt.mqtt5.message.unsubscribe.unsuback.Mqtt5UnsubAckReasonCode;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** MQTT 5 chapters 3.8 – 3.11 (SUBSCRIBE, SUBACK, UNSUBSCRIBE, UNSUBACK) and the topic rules of 4.7. */
@WithBroker(settings = {"mqtt.connect-timeout-ms=1000", "mqtt.max-packet-size=64k"})
class Chapter3_8_SubscribeIT {
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    @Test
    void shouldMatchSingleAndMultiLevelWildcards() throws Exception {
        final Mqtt5BlockingClient sub = Clients.v5(broker, "wild-sub");
        final Mqtt5BlockingClient pub = Clients.v5(broker, "wild-pub");
        try (var in = publishes(sub)) {
            final Mqtt5SubAck ack = sub.subscribeWith().addSubscription().topicFilter("home/+/temp")
                    .qos(MqttQos.AT_LEAST_ONCE).applySubscription().addSubscription().topicFilter("home/garage/#")
                    .qos(MqttQos.AT_MOST_ONCE).applySubscription().send();
            assertThat(ack.getReasonCodes()).containsExactly(Mqtt5SubAckReasonCode.GRANTED_QOS_1,
                    Mqtt5SubAckReasonCode.GRANTED_QOS_0);
            for (String t : List.of("home/kitchen/temp", "home/kitchen/hum", "home/garage", "home/garage/door/1",
                    "home/a/b/temp", "office/kitchen/temp")) {
                pub.publishWith().topic(t).qos(MqttQos.AT_LEAST_ONCE).payload(bytes(t)).send();
            }
            final List<Mqtt5Publish> got = receive(in, 3);
            assertThat(texts(got)).containsExactlyInAnyOrder("home/kitchen/temp", "home/garage",
                    "home/garage/door/1");
            Clients.assertNoMore(in, 500);
        } finally {
            sub.disconnect();
            pub.disconnect();
        }
    }

    @Test
    void shouldNotMatchDollarTopicsWithRootWildcards() throws Exception {
        final Mqtt5BlockingClient all = Clients.v5(broker, "root-all");
        final Mqtt5BlockingClient sys = Clients.v5(broker, "root-sys");
        final Mqtt5BlockingClient pub = Clients.v5(broker, "root-pub");
        try (var allIn = publishes(all); var sysIn = publishes(sys)) {
            all.subscribeWith().topicFilter("#").qos(MqttQos.AT_LEAST_ONCE).send();
            sys.subscribeWith().topicFilter("$SYS/#").qos(MqttQos.AT_LEAST_ONCE).send();
            pub.publishWith().topic("$SYS/broker/load").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("sys")).send();
            pub.publishWith().topic("rootcheck/x").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("plain")).send();
            assertThat(texts(receive(sysIn, 1))).containsExactly("sys");
            final List<String> got = texts(receive(allIn, 1));
            assertThat(got).containsExactly("plain");
            Clients.assertNoMore(allIn, 1500);
        } finally {
            all.disconnect();
            sys.disconnect();
            pub.disconnect();
        }
    }

    @Test
    void shouldStopDeliveringAfterUnsubscribe() throws Exception {
        final Mqtt5BlockingClient sub = Clients.v5(broker, "unsub-sub");
        final Mqtt5BlockingClient pub = Clients.v5(broker, "unsub-pub");
        try (var in = publishes(sub)) {
            sub.subscribeWith().topicFilter("unsub/+").qos(MqttQos.AT_LEAST_ONCE).send();
            pub.publishWith().topic("unsub/a").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("before")).send();
            assertThat(texts(receive(in, 1))).containsExactly("before");
            assertThat(sub.unsubscribeWith().topicFilter("unsub/+").send().getReasonCodes())
                    .containsExactly(Mqtt5UnsubAckReasonCode.SUCCESS);
            assertThat(sub.unsubscribeWith().topicFilter("never/subscribed").send().getReasonCodes())
                    .containsExactly(Mqtt5UnsubAckReasonCode.NO_SUBSCRIPTIONS_EXISTED);
            pub.publishWith().topic("unsub/a").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("after")).send();
            Clients.assertNoMore(in, 700);
        } finally {
            sub.disconnect();
            pub.disconnect();
        }
    }

    @Test
    void shouldDeliverAtTheLowerOfPublishAndSubscriptionQos() throws Exception {
        final Mqtt5BlockingClient sub = Clients.v5(broker, "qos-sub");
        final Mqtt5BlockingClient pub = Clients.v5(broker, "qos-pub");
        try (var in = publishes(sub)) {
            sub.subscribeWith().topicFilter("downgrade/#").qos(MqttQos.AT_LEAST_ONCE).send();
            pub.publishWith().topic("downgrade/2").qos(MqttQos.EXACTLY_ONCE).payload(bytes("two")).send();
            pub.publishWith().topic("downgrade/0").qos(MqttQos.AT_MOST_ONCE).payload(bytes("zero")).send();
            final java.util.Map<String, MqttQos> got = new java.util.HashMap<>();
            receive(in, 2).forEach(p -> got.put(p.getTopic().toString(), p.getQos()));
            assertThat(got).containsEntry("downgrade/2", MqttQos.AT_LEAST_ONCE)
                    .containsEntry("downgrade/0", MqttQos.AT_MOST_ONCE);
        } finally {
            sub.disconnect();
            pub.disconnect();
        }
    }

    @Test
    void shouldApplyNoLocal() throws Exception {
        final Mqtt5BlockingClient self = Clients.v5(broker, "nolocal");
        final Mqtt5BlockingClient other = Clients.v5(broker, "nolocal-other");
        try (var in = publishes(self)) {
            self.subscribeWith().topicFilter("chat/room").qos(MqttQos.AT_LEAST_ONCE).noLocal(true).send();
            self.publishWith().topic("chat/room").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("mine")).send();
            other.publishWith().topic("chat/room").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("theirs")).send();
            final List<Mqtt5Publish> got = receive(in, 1);
            assertThat(texts(got)).containsExactly("theirs");
            Clients.assertNoMore(in, 500);
        } finally {
            self.disconnect();
            other.disconnect();
        }
    }

    @Test
    void shouldSendSubscriptionIdentifiersWithPahoV5() throws Exception {
        final java.util.concurrent.BlockingQueue<org.eclipse.paho.mqttv5.common.MqttMessage> got =
                new java.util.concurrent.LinkedBlockingQueue<>();
        final org.eclipse.paho.mqttv5.client.MqttAsyncClient sub = new org.eclipse.paho.mqttv5.client.MqttAsyncClient(
                broker.mqttUri(), "subid-sub", new org.eclipse.paho.mqttv5.client.persist.MemoryPersistence());
        sub.setCallback(new org.eclipse.paho.mqttv5.client.MqttCallback() {
            @Override
            public void disconnected(final org.eclipse.paho.mqttv5.client.MqttDisconnectResponse r) {
            }

            @Override
            public void mqttErrorOccurred(final org.eclipse.paho.mqttv5.common.MqttException e) {
            }

            @Override
            public void messageArrived(final String topic, final org.eclipse.paho.mqttv5.common.MqttMessage m) {
                got.add(m);
            }

            @Override
            public void deliveryComplete(final org.eclipse.paho.mqttv5.client.IMqttToken token) {
            }

            @Override
            public void connectComplete(final boolean reconnect, final String uri) {
            }

            @Override
            public void authPacketArrived(final int reason, final org.eclipse.paho.mqttv5.common.packet.MqttProperties p) {
            }
        });
        sub.connect(new org.eclipse.paho.mqttv5.client.MqttConnectionOptions()).waitForCompletion(5000);
        final org.eclipse.paho.mqttv5.common.packet.MqttProperties props =
                new org.eclipse.paho.mqttv5.common.packet.MqttProperties();
        props.setSubscriptionIdentifier(42);
        sub.subscribe(new org.eclipse.paho.mqttv5.common.MqttSubscription[] {
                new org.eclipse.paho.mqttv5.common.MqttSubscription("subid/#", 1)}, null, null, props)
                .waitForCompletion(5000);
        final Mqtt5BlockingClient pub = Clients.v5(broker, "subid-pub");
        pub.publishWith().topic("subid/x").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("tagged")).send();
        final org.eclipse.paho.mqttv5.common.MqttMessage m = got.poll(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(m).isNotNull();
        assertThat(new String(m.getPayload())).isEqualTo("tagged");
        assertThat(m.getProperties().getSubscriptionIdentifiers()).containsExactly(42);
        pub.disconnect();
        sub.disconnect().waitForCompletion(5000);
        sub.close();
    }

    /**
     * 3.8.2.1.2: the identifiers a PUBLISH carries are those of the receiving client's own matching subscriptions.
     * Four subscribers, two with identifiers: connections alternate over the broker's event loops, so a loop serves
     * a subscriber with an identifier and one without, which share one mapping of each message.
     */
    @Test
    void shouldSendEachSubscriberOnlyItsOwnSubscriptionIdentifiers() throws Exception {
        final int[] ids = {10, 11, 0, 0};
        final List<java.util.concurrent.BlockingQueue<org.eclipse.paho.mqttv5.common.MqttMessage>> got =
                new java.util.ArrayList<>();
        final List<org.eclipse.paho.mqttv5.client.MqttAsyncClient> subs = new java.util.ArrayList<>();
        for (int i = 0; i < ids.length; i++) {
            final java.util.concurrent.BlockingQueue<org.eclipse.paho.mqttv5.common.MqttMessage> in =
                    new java.util.concurrent.LinkedBlockingQueue<>();
            final org.eclipse.paho.mqttv5.client.MqttAsyncClient sub =
                    new org.eclipse.paho.mqttv5.client.MqttAsyncClient(broker.mqttUri(), "own-ids-" + i,
                            new org.eclipse.paho.mqttv5.client.persist.MemoryPersistence());
            sub.setCallback(new org.eclipse.paho.mqttv5.client.MqttCallback() {
                @Override
                public void disconnected(final org.eclipse.paho.mqttv5.client.MqttDisconnectResponse r) {
                }

                @Override
                public void mqttErrorOccurred(final org.eclipse.paho.mqttv5.common.MqttException e) {
                }

                @Override
                public void messageArrived(final String topic, final org.eclipse.paho.mqttv5.common.MqttMessage m) {
                    in.add(m);
                }

                @Override
                public void deliveryComplete(final org.eclipse.paho.mqttv5.client.IMqttToken token) {
                }

                @Override
                public void connectComplete(final boolean reconnect, final String uri) {
                }

                @Override
                public void authPacketArrived(final int reason,
                                              final org.eclipse.paho.mqttv5.common.packet.MqttProperties p) {
                }
            });
            sub.connect(new org.eclipse.paho.mqttv5.client.MqttConnectionOptions()).waitForCompletion(5000);
            final org.eclipse.paho.mqttv5.common.packet.MqttProperties props =
                    new org.eclipse.paho.mqttv5.common.packet.MqttProperties();
            if (ids[i] > 0) {
                props.setSubscriptionIdentifier(ids[i]);
            }
            sub.subscribe(new org.eclipse.paho.mqttv5.common.MqttSubscription[] {
                    new org.eclipse.paho.mqttv5.common.MqttSubscription("own-ids/#", 1)}, null, null, props)
                    .waitForCompletion(5000);
            got.add(in);
            subs.add(sub);
        }
        final Mqtt5BlockingClient pub = Clients.v5(broker, "own-ids-pub");
        try {
            for (int n = 0; n < 20; n++) {
                pub.publishWith().topic("own-ids/x").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("m" + n)).send();
            }
            for (int i = 0; i < ids.length; i++) {
                for (int n = 0; n < 20; n++) {
                    final org.eclipse.paho.mqttv5.common.MqttMessage m =
                            got.get(i).poll(10, java.util.concurrent.TimeUnit.SECONDS);
                    assertThat(m).as("subscriber %d, message %d", i, n).isNotNull();
                    assertThat(new String(m.getPayload(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("m" + n);
                    assertThat(m.getProperties().getSubscriptionIdentifiers()).as("subscriber %d", i)
                            .isEqualTo(ids[i] > 0 ? List.of(ids[i]) : List.of());
                }
            }
        } finally {
            pub.disconnect();
            for (org.eclipse.paho.mqttv5.client.MqttAsyncClient sub : subs) {
                sub.disconnect().waitForCompletion(5000);
                sub.close();
            }
        }
    }

    @Test
    void shouldRefuseMalformedFilters() {
        final Mqtt3BlockingClient c = Clients.v3(broker, "bad-filter");
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            raw.send(RawMqtt.connect311("bad-filter-raw", 60));
            assertThat(raw.readPacketType(java.time.Duration.ofSeconds(5))).isEqualTo(0x20);
            // SUBSCRIBE id 1, filter "a/#/b" QoS 1
            final byte[] f = bytes("a/#/b");
            final byte[] body = new byte[2 + 2 + f.length + 1];
            body[1] = 1;
            body[3] = (byte) f.length;
            System.arraycopy(f, 0, body, 4, f.length);
            body[body.length - 1] = 1;
            raw.send(RawMqtt.packet(0x82, body));
            assertThat(raw.readPacketType(java.time.Duration.ofSeconds(5))).isEqualTo(0x90); // SUBACK
        }
        assertThat(c.subscribeWith().topicFilter("fine/+").qos(MqttQos.AT_LEAST_ONCE).send().getReturnCodes())
                .containsExactly(Mqtt3SubAckReturnCode.SUCCESS_MAXIMUM_QOS_1);
        c.disconnect();
    }

    @Test
    void shouldExplainRefusedFiltersInReasonStringsUnlessTheClientAsksForNone() {
        final Mqtt5BlockingClient c = Clients.v5(broker, "explained");
        final Mqtt5SubAck ack = subAck(() -> c.subscribeWith()
                .addSubscription().topicFilter("fine/x").qos(MqttQos.AT_LEAST_ONCE).applySubscription()
                .addSubscription().topicFilter("$share/g/#").qos(MqttQos.AT_LEAST_ONCE).applySubscription()
                .send());
        assertThat(ack.getReasonCodes()).containsExactly(Mqtt5SubAckReasonCode.GRANTED_QOS_1,
                Mqtt5SubAckReasonCode.SHARED_SUBSCRIPTIONS_NOT_SUPPORTED);
        assertThat(ack.getReasonString().map(Object::toString).orElse(""))
                .startsWith("$share/g/#: ").doesNotContain("fine/x");
        final Mqtt5UnsubAck unsub = unsubAck(() -> c.unsubscribeWith().addTopicFilter("fine/x")
                .addTopicFilter("never/subscribed").send());
        assertThat(unsub.getReasonCodes()).containsExactly(Mqtt5UnsubAckReasonCode.SUCCESS,
                Mqtt5UnsubAckReasonCode.NO_SUBSCRIPTIONS_EXISTED);
        assertThat(unsub.getReasonString().map(Object::toString))
                .hasValue("never/subscribed: no subscription existed");
        c.disconnect();

        final Mqtt5BlockingClient quiet = com.hivemq.client.mqtt.MqttClient.builder().useMqttVersion5()
                .identifier("unexplained").serverHost("127.0.0.1").serverPort(broker.mqttPort()).buildBlocking();
        quiet.connectWith().restrictions().requestProblemInformation(false).applyRestrictions().send();
        final Mqtt5SubAck quietAck = subAck(() -> quiet.subscribeWith()
                .addSubscription().topicFilter("fine/y").qos(MqttQos.AT_MOST_ONCE).applySubscription()
                .addSubscription().topicFilter("$share/g/+").qos(MqttQos.AT_MOST_ONCE).applySubscription()
                .send());
        assertThat(quietAck.getReasonCodes()).containsExactly(Mqtt5SubAckReasonCode.GRANTED_QOS_0,
                Mqtt5SubAckReasonCode.SHARED_SUBSCRIPTIONS_NOT_SUPPORTED);
        assertThat(quietAck.getReasonString()).isEmpty(); // 3.1.2.11.7: the client asked for no problem information
        final Mqtt5UnsubAck quietUnsub = unsubAck(() -> quiet.unsubscribeWith().addTopicFilter("fine/y")
                .addTopicFilter("never/y").send());
        assertThat(quietUnsub.getReasonCodes()).containsExactly(Mqtt5UnsubAckReasonCode.SUCCESS,
                Mqtt5UnsubAckReasonCode.NO_SUBSCRIPTIONS_EXISTED);
        assertThat(quietUnsub.getReasonString()).isEmpty();
        quiet.disconnect();
    }

    /** The SUBACK, also when the HiveMQ client reports one with an error code as an exception. */
    private static Mqtt5SubAck subAck(final java.util.function.Supplier<Mqtt5SubAck> subscribe) {
        try {
            return subscribe.get();
        } catch (com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5SubAckException e) {
            return e.getMqttMessage();
        }
    }

    /** The UNSUBACK, also when the HiveMQ client reports one with an error code as an exception. */
    private static Mqtt5UnsubAck unsubAck(final java.util.function.Supplier<Mqtt5UnsubAck> unsubscribe) {
        try {
            return unsubscribe.get();
        } catch (com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5UnsubAckException e) {
            return e.getMqttMessage();
        }
    }

    @Test
    void shouldDisconnectWithProtocolErrorForNoLocalOnASharedSubscription() {
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            raw.send(RawMqtt.connect5("shared-no-local", true, 0, 0));
            assertThat(raw.readPacket(java.time.Duration.ofSeconds(5))[0]).isEqualTo((byte) 0x20);
            raw.send(RawMqtt.subscribe(1, "$share/g/jobs/#", 1 | 0x04, true)); // QoS 1 with No Local
            final byte[] disconnect = raw.readPacket(java.time.Duration.ofSeconds(5));
            assertThat(disconnect).isNotNull();
            assertThat(disconnect[0]).isEqualTo((byte) 0xE0);
            assertThat(disconnect[1] & 0xFF).isEqualTo(0x82); // 3.8.3-4
            assertThat(raw.closedWithin(java.time.Duration.ofSeconds(5))).isTrue();
        }
    }
}
