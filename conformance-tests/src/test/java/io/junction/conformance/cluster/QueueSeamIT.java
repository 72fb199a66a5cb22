package io.junction.conformance.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.conformance.support.ClusterLaunch;
import io.junction.conformance.support.ClusterProcesses;
import io.junction.conformance.support.RunningBroker;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Qpid JMS (AMQP 1.0) consumer of a queue reads it through a proxy over two store groups (one {@code store}
 * replica each) while the proxy scales the queue from g1 to g2, with the messages it received from g1 not yet
 * committed: the messages sent after the seam wait until those are done, the ones it rolls back come again first,
 * and the queue is consumed in send order, every message committed once. A queue browser of a second queue scaled
 * likewise lists the old segment's messages, then the new one's, in send order.
 */
@Tag("cluster")
class QueueSeamIT {
    private static final String QUEUE = "jms-seam";
    private static final String BROWSED = "jms-seam-browsed";
    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final ClusterProcesses cluster = new ClusterProcesses();
    private final List<RunningBroker> stores = cluster.stores();
    private final List<RunningBroker> proxies = cluster.proxies();
    private final List<AutoCloseable> clients = cluster.clients();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void shouldConsumeTheQueueInSendOrderAcrossTheSeamWhileOldMessagesAreUncommitted() throws Exception {
        ClusterLaunch.storeGroupsAndProxies(2, 1, "-Xmx160m", 1, stores, proxies);
        final RunningBroker proxy = proxies.get(0);
        final HttpResponse<String> created = post(proxy, "/admin/topics", "{\"name\":\"" + QUEUE + "\",\"queues\":1}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);

        final Connection connection = new JmsConnectionFactory("amqp://127.0.0.1:" + proxy.amqpPort()
                + "?jms.forceSyncSend=true&jms.connectTimeout=10000&jms.prefetchPolicy.all=16").createConnection();
        clients.add(connection::close);
        connection.start();
        final Session sending = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        final Queue queue = sending.createQueue(QUEUE);
        final MessageProducer producer = sending.createProducer(queue);
        // A transacted consumer: what it received stays unacknowledged (in flight on g1) until it commits.
        final Session receiving = connection.createSession(true, Session.SESSION_TRANSACTED);
        final MessageConsumer consumer = receiving.createConsumer(queue);

        for (int i = 0; i < 3; i++) {
            producer.send(sending.createTextMessage("q" + i));
        }
        assertThat(receive(consumer, 3)).containsExactly("q0", "q1", "q2");

        final HttpResponse<String> scaled = post(proxy, "/admin/topics/" + QUEUE + "/scale?queues=1&groups=g2", "");
        assertThat(scaled.statusCode()).as(scaled.body()).isEqualTo(200);
        assertThat(scaled.body()).containsPattern("\"placement\":\"g1:0:0:0:3,g2:[0-9]+:3:0:-\"");
        producer.send(sending.createTextMessage("q3"));
        producer.send(sending.createTextMessage("q4"));

        // q0..q2 are in flight on g1, so q3 on g2 waits: nothing arrives (the consumer's credit would fetch it).
        assertThat(consumer.receive(3_000)).as("nothing of g2 while g1's messages are uncommitted").isNull();

        // Rolled back, they come again in their place, ahead of g2's; once committed, g2's follow.
        receiving.rollback();
        final List<String> again = receive(consumer, 3);
        assertThat(again).containsExactly("q0", "q1", "q2");
        receiving.commit();
        final List<String> after = receive(consumer, 2);
        receiving.commit();
        assertThat(after).containsExactly("q3", "q4");
        assertThat(consumer.receive(1_000)).as("every message committed once").isNull();

        // A browser of a queue scaled from g1 to g2 lists both segments' messages in send order, taking nothing.
        final HttpResponse<String> browsedQueue = post(proxy, "/admin/topics",
                "{\"name\":\"" + BROWSED + "\",\"queues\":1}");
        assertThat(browsedQueue.statusCode()).as(browsedQueue.body()).isEqualTo(201);
        final Queue browsed = sending.createQueue(BROWSED);
        final MessageProducer browsedProducer = sending.createProducer(browsed);
        for (int i = 0; i < 3; i++) {
            browsedProducer.send(sending.createTextMessage("b" + i));
        }
        final HttpResponse<String> scaledBrowsed = post(proxy, "/admin/topics/" + BROWSED
                + "/scale?queues=1&groups=g2", "");
        assertThat(scaledBrowsed.statusCode()).as(scaledBrowsed.body()).isEqualTo(200);
        browsedProducer.send(sending.createTextMessage("b3"));
        browsedProducer.send(sending.createTextMessage("b4"));
        final List<String> all = List.of("b0", "b1", "b2", "b3", "b4");
        assertThat(browse(sending.createBrowser(browsed))).containsExactlyElementsOf(all);
        assertThat(browse(sending.createBrowser(browsed))).as("browsing again: nothing was taken")
                .containsExactlyElementsOf(all);
    }

    private static List<String> browse(final QueueBrowser browser) throws JMSException {
        final List<String> out = new ArrayList<>();
        final Enumeration<?> e = browser.getEnumeration();
        while (e.hasMoreElements()) {
            out.add(((TextMessage) e.nextElement()).getText());
        }
        browser.close();
        return out;
    }

    /** The next {@code count} messages' bodies, in the order received (each within {@link #WAIT}). */
    private static List<String> receive(final MessageConsumer consumer, final int count) throws JMSException {
        final List<String> bodies = new ArrayList<>();
        final long end = System.nanoTime() + WAIT.toNanos();
        while (bodies.size() < count && System.nanoTime() < end) {
            final Message m = consumer.receive(1_000);
            if (m != null) {
                bodies.add(((TextMessage) m).getText());
            }
        }
        return bodies;
    }

    private HttpResponse<String> post(final RunningBroker proxy, final String path, final String json)
            throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(proxy.httpBase() + path))
                .timeout(Duration.ofSeconds(20)).header("content-type", "application/json")
                .POST(json.isEmpty() ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
