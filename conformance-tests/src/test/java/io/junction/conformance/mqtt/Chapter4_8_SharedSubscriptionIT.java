package io.junction.conformance.mqtt;

import static io.junction.conformance.mqtt.Clients.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** MQTT 5 section 4.8.2 (shared subscriptions) as POP consumer groups: nothing lost, nothing duplicated. */
@WithBroker(settings = {"mqtt.connect-timeout-ms=1000", "mqtt.max-packet-size=64k"})
class Chapter4_8_SharedSubscriptionIT {
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    @Test
    void shouldSplitMessagesAcrossTheGroupWithoutLossOrDuplicates() {
        final List<String> a = new CopyOnWriteArrayList<>();
        final List<String> b = new CopyOnWriteArrayList<>();
        final ConcurrentLinkedQueue<String> plain = new ConcurrentLinkedQueue<>();
        final Mqtt5BlockingClient ca = member("share-a", a);
        final Mqtt5BlockingClient cb = member("share-b", b);
        final Mqtt5BlockingClient cp = Clients.v5(broker, "share-plain");
        cp.toAsync().publishes(MqttGlobalPublishFilter.ALL, p -> plain.add(Clients.text(p)));
        cp.subscribeWith().topicFilter("jobs/+").qos(MqttQos.AT_LEAST_ONCE).send();
        final Mqtt5BlockingClient pub = Clients.v5(broker, "share-pub");
        for (int i = 0; i < 40; i++) {
            pub.publishWith().topic("jobs/" + (i % 3)).qos(MqttQos.AT_LEAST_ONCE).payload(bytes("job" + i)).send();
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> a.size() + b.size() >= 40 && plain.size() >= 40);
        await().pollDelay(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> true);
        final List<String> all = new java.util.ArrayList<>(a);
        all.addAll(b);
        assertThat(all).hasSize(40).doesNotHaveDuplicates();
        assertThat(plain).hasSize(40); // a normal subscription still gets every message
        ca.disconnect();
        cb.disconnect();
        cp.disconnect();
        pub.disconnect();
    }

    private static Mqtt5BlockingClient member(final String id, final List<String> sink) {
        final Mqtt5BlockingClient c = Clients.v5(broker, id);
        final Mqtt5AsyncClient async = c.toAsync();
        async.publishes(MqttGlobalPublishFilter.ALL, p -> sink.add(Clients.text(p)));
        c.subscribeWith().topicFilter("$share/workers/jobs/+").qos(MqttQos.AT_LEAST_ONCE).send();
        return c;
    }
}
