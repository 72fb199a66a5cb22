package io.junction.conformance.mqtt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.paho.mqttv5.client.MqttClient;
import org.eclipse.paho.mqttv5.client.MqttConnectionOptions;
import org.eclipse.paho.mqttv5.client.persist.MemoryPersistence;
import org.eclipse.paho.mqttv5.common.MqttMessage;
import org.eclipse.paho.mqttv5.common.MqttSubscription;
import org.eclipse.paho.mqttv5.common.packet.MqttProperties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** MQTT 5 chapter 4.3 (QoS levels and protocol flows) and 4.9 (flow control), with Eclipse Paho v3 and v5. */
@WithBroker(settings = {"mqtt.connect-timeout-ms=1000", "mqtt.max-packet-size=64k"})
class Chapter4_3_QosIT {
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    @Test
    void shouldDeliverQos2ExactlyOnceBothWaysWithPahoV5() throws Exception {
        final List<String> got = new CopyOnWriteArrayList<>();
        final List<Integer> qos = new CopyOnWriteArrayList<>(); // asserted on the test thread, not in the listener
        final MqttClient sub = new MqttClient(broker.mqttUri(), "paho5-sub", new MemoryPersistence());
        final MqttConnectionOptions options = new MqttConnectionOptions();
        options.setReceiveMaximum(5); // the in-flight window the broker must respect
        sub.connect(options);
        sub.subscribe(new MqttSubscription[] {new MqttSubscription("exact/#", 2)},
                new org.eclipse.paho.mqttv5.client.IMqttMessageListener[] {(t, m) -> {
                    qos.add(m.getQos());
                    got.add(new String(m.getPayload()));
                }});
        final MqttClient pub = new MqttClient(broker.mqttUri(), "paho5-pub", new MemoryPersistence());
        pub.connect(new MqttConnectionOptions());
        for (int i = 0; i < 50; i++) {
            final MqttMessage m = new MqttMessage(("m" + i).getBytes());
            m.setQos(2);
            m.setProperties(new MqttProperties());
            pub.publish("exact/a", m);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> got.size() >= 50);
        await().pollDelay(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> true);
        assertThat(got).hasSize(50);
        assertThat(qos).hasSize(50).containsOnly(2);
        for (int i = 0; i < 50; i++) {
            assertThat(got.get(i)).isEqualTo("m" + i);
        }
        pub.disconnect();
        pub.close();
        sub.disconnect();
        sub.close();
    }

    @Test
    void shouldDeliverQos1AndQos2WithPahoV3() throws Exception {
        final List<String> got = new CopyOnWriteArrayList<>();
        final org.eclipse.paho.client.mqttv3.MqttClient sub = new org.eclipse.paho.client.mqttv3.MqttClient(
                broker.mqttUri(), "paho3-sub", new org.eclipse.paho.client.mqttv3.persist.MemoryPersistence());
        final org.eclipse.paho.client.mqttv3.MqttConnectOptions options =
                new org.eclipse.paho.client.mqttv3.MqttConnectOptions();
        options.setMaxInflight(3);
        sub.connect(options);
        sub.subscribe("paho3/+", 2, (t, m) -> got.add(t + ":" + m.getQos() + ":" + new String(m.getPayload())));
        final org.eclipse.paho.client.mqttv3.MqttClient pub = new org.eclipse.paho.client.mqttv3.MqttClient(
                broker.mqttUri(), "paho3-pub", new org.eclipse.paho.client.mqttv3.persist.MemoryPersistence());
        // Paho wakes a blocking publish at the acknowledgement but counts the message out of flight later, on its
        // callback thread: with acknowledgements as fast as loopback allows, 20 publishes could overrun its default
        // window of 10 ("Too many publishes in progress") on a busy machine.
        final org.eclipse.paho.client.mqttv3.MqttConnectOptions pubOptions =
                new org.eclipse.paho.client.mqttv3.MqttConnectOptions();
        pubOptions.setMaxInflight(100);
        pub.connect(pubOptions);
        for (int i = 0; i < 10; i++) {
            pub.publish("paho3/one", ("a" + i).getBytes(), 1, false);
            pub.publish("paho3/two", ("b" + i).getBytes(), 2, false);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> got.size() >= 20);
        assertThat(got.stream().filter(s -> s.startsWith("paho3/one:1:")).toList()).hasSize(10);
        assertThat(got.stream().filter(s -> s.startsWith("paho3/two:2:")).toList()).hasSize(10);
        pub.disconnect();
        pub.close();
        sub.disconnect();
        sub.close();
    }
}
