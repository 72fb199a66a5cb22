package io.junction.conformance.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5Client;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5DisconnectException;
import com.hivemq.client.mqtt.mqtt5.message.disconnect.Mqtt5DisconnectReasonCode;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import io.junction.tenancy.IssuedToken;
import jakarta.jms.Connection;
import jakarta.jms.JMSSecurityException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;

/**
 * The web console in a real browser: Debian's headless Chromium driven by Selenium through its chromedriver, against a
 * broker with security on. The test logs in as a super user, then checks what the pages show of real clients'
 * traffic: a topic an MQTT publish created and its rate moving while a publisher runs, a message sent with Qpid JMS
 * found by its id with its body and its trace, a dead letter re-driven back to its queue (and the JMS consumer listed
 * as the group's POP consumer), an MQTT client listed with its subscription and disconnected, and a user created,
 * granted and revoked a rule, and deleted, with a namespace quota set (a real JMS client's sends show each change),
 * and a bearer token issued, shown once, used by a CloudEvents client and refused after it is revoked.
 *
 * <p>Skipped (an assumption) only when chromedriver is not installed (see {@link HeadlessChromium}).
 */
@WithBroker(settings = {ConsoleUsers.ON, ConsoleUsers.KEY_SETTING, "trace.topics=console-traced"},
        seed = ConsoleUsers.class)
class ConsoleBrowserIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final int REJECTED = 2; // Qpid JMS's JMS_AMQP_ACK_TYPE for the AMQP "rejected" outcome

    private static RunningBroker broker;
    private static HeadlessChromium chromium;
    private static WebDriver browser;

    @BeforeAll
    static void openBrowser(final RunningBroker running) throws IOException {
        broker = running;
        chromium = HeadlessChromium.open();
        browser = chromium.driver();
        logIn();
    }

    @AfterAll
    static void closeBrowser() {
        if (chromium != null) {
            chromium.close();
        }
    }

    @AfterEach
    void printBrowserLog() {
        chromium.printLog();
    }

    private static void logIn() {
        browser.get(broker.httpBase() + "/console");
        // Security is on and the browser has no credentials yet: the page asks for them, and refuses wrong ones.
        final WebElement user = visible(By.id("login-user"));
        user.sendKeys("root");
        browser.findElement(By.id("login-password")).sendKeys("wrong");
        browser.findElement(By.id("login-submit")).click();
        await().atMost(WAIT).untilAsserted(() -> assertThat(browser.findElement(By.id("login-error")).getText())
                .isEqualTo("User name or password is wrong."));
        browser.findElement(By.id("login-password")).clear();
        browser.findElement(By.id("login-password")).sendKeys("root-pw");
        browser.findElement(By.id("login-submit")).click();
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(browser.findElement(By.id("signed-in-as")).getText()).isEqualTo("root");
            assertThat(browser.findElement(By.id("login")).isDisplayed()).isFalse();
        });
    }

    @Test
    void shouldShowATopicAnMqttPublishCreatedAndItsRateMove() throws Exception {
        final Mqtt5BlockingClient mqtt = Mqtt5Client.builder().identifier("console-mqtt")
                .serverHost("127.0.0.1").serverPort(broker.mqttPort())
                .simpleAuth().username("dave").password("dave-pw".getBytes(StandardCharsets.UTF_8)).applySimpleAuth()
                .buildBlocking();
        mqtt.connect();
        try {
            for (int i = 0; i < 5; i++) {
                mqtt.publishWith().topic("console-sensors/room1").qos(MqttQos.AT_LEAST_ONCE)
                        .payload(("reading " + i).getBytes(StandardCharsets.UTF_8)).send();
            }
            show("topics");
            final By row = By.cssSelector("#topic-table tr[data-topic='console-sensors']");
            await().atMost(WAIT).ignoreExceptions().untilAsserted(() ->
                    assertThat(browser.findElement(row).findElement(By.className("messages")).getText())
                            .isEqualTo("5"));

            // A steady publisher: the topic's rate on the topics page and MQTT's on the overview go above zero.
            final AtomicBoolean publishing = new AtomicBoolean(true);
            final AtomicInteger sent = new AtomicInteger();
            final Thread publisher = new Thread(() -> {
                while (publishing.get()) {
                    mqtt.publishWith().topic("console-sensors/room2").qos(MqttQos.AT_LEAST_ONCE)
                            .payload("tick".getBytes(StandardCharsets.UTF_8)).send();
                    sent.incrementAndGet();
                }
            });
            publisher.start();
            try {
                await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> assertThat(Double.parseDouble(
                        browser.findElement(row).findElement(By.className("in-rate")).getText())).isPositive());
                show("overview");
                final By mqttRow = By.cssSelector("#protocols tr[data-protocol='mqtt']");
                await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
                    assertThat(Double.parseDouble(browser.findElement(mqttRow).findElement(By.className("in-rate"))
                            .getText())).isPositive();
                    assertThat(Integer.parseInt(browser.findElement(mqttRow).findElement(By.className("connections"))
                            .getText())).isGreaterThanOrEqualTo(1);
                    assertThat(browser.findElements(By.cssSelector("#rate-chart .uplot"))).hasSize(1);
                });
            } finally {
                publishing.set(false);
                publisher.join(WAIT.toMillis());
            }
            // Once the publisher stopped, the topic page counts every message it sent.
            show("topics");
            await().atMost(WAIT).ignoreExceptions().untilAsserted(() ->
                    assertThat(browser.findElement(row).findElement(By.className("messages")).getText())
                            .isEqualTo(String.valueOf(5 + sent.get())));
        } finally {
            mqtt.disconnect();
        }
    }

    @Test
    void shouldFindAMessageSentOverAmqpByItsIdAndShowItsTrace() throws Exception {
        final String id;
        try (Connection c = jms()) {
            final Session s = c.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            final Queue q = s.createQueue("console-traced");
            final TextMessage m = s.createTextMessage("hello from JMS");
            s.createProducer(q).send(m);
            id = m.getJMSMessageID();
            final Message received = s.createConsumer(q).receive(WAIT.toMillis());
            assertThat(((TextMessage) received).getText()).isEqualTo("hello from JMS");
            received.acknowledge();
        }

        show("messages");
        browser.findElement(By.id("search-topic")).sendKeys("console-traced");
        browser.findElement(By.id("search-value")).sendKeys(id);
        browser.findElement(By.id("search-submit")).click();
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            assertThat(browser.findElement(By.id("search-count")).getText()).isEqualTo("1 message(s)");
            assertThat(browser.findElement(By.id("message-body")).getText()).isEqualTo("hello from JMS");
        });
        assertThat(browser.findElement(By.cssSelector("#message-detail h2")).getText()).isEqualTo(id);

        // Trace records are written without waiting for them: look again until the send, the delivery and the ack
        // are all there.
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            browser.findElement(By.id("show-trace")).click();
            final List<String> types = browser.findElements(By.cssSelector("#message-trace tr.trace-event")).stream()
                    .map(e -> e.getAttribute("data-type")).toList();
            assertThat(types).containsExactly("Pub", "SubBefore", "SubAfter");
        });
        final List<WebElement> events = browser.findElements(By.cssSelector("#message-trace tr.trace-event"));
        assertThat(events.get(0).getText()).contains("sent and stored").contains("amqp").contains("ok");
        assertThat(events.get(1).getText()).contains("delivered").contains("console-traced");
        assertThat(events.get(2).getText()).contains("consumed").contains("ok");
    }

    @Test
    void shouldRedriveADeadLetterBackToItsQueue() throws Exception {
        try (Connection c = jms()) {
            final Session s = c.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            final Queue q = s.createQueue("console-poison");
            s.createProducer(q).send(s.createTextMessage("poison"));
            final MessageConsumer consumer = s.createConsumer(q);
            final Message m = consumer.receive(WAIT.toMillis());
            m.setIntProperty("JMS_AMQP_ACK_TYPE", REJECTED);
            m.acknowledge();
        }

        show("groups");
        final By link = By.cssSelector("#group-table tr[data-group='console-poison'] a.group-name");
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            assertThat(browser.findElement(By.cssSelector("#group-table tr[data-group='console-poison'] "
                    + ".dead-letters")).getText()).isEqualTo("1");
        });
        browser.findElement(link).click();
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() ->
                assertThat(browser.findElement(By.id("group-dead-letters")).getText()).isEqualTo("1"));
        // The JMS consumer sent no heartbeat: the group lists it as a POP consumer, by its AMQP connection.
        final WebElement popConsumer = browser.findElement(By.cssSelector("#group-pop-consumers tbody tr"));
        assertThat(popConsumer.findElement(By.className("protocol")).getText()).isEqualTo("amqp");
        assertThat(popConsumer.findElement(By.className("remote")).getText()).startsWith("127.0.0.1:");
        browser.findElement(By.id("redrive")).click();
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            assertThat(browser.findElement(By.id("redrive-result")).getText()).isEqualTo("Re-drove 1 message(s).");
            // Redrive copies: the dead letter stays in its topic, counted as re-driven, no longer as waiting.
            assertThat(browser.findElement(By.id("group-dead-letters")).getText()).isEqualTo("0");
            assertThat(browser.findElement(By.id("group-redriven")).getText()).isEqualTo("1");
        });

        // The message is back on its queue for the group's consumers.
        try (Connection c = jms()) {
            final Session s = c.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            final Message again = s.createConsumer(s.createQueue("console-poison")).receive(WAIT.toMillis());
            assertThat(again).isNotNull();
            assertThat(((TextMessage) again).getText()).isEqualTo("poison");
            again.acknowledge();
        }
    }

    @Test
    void shouldListAnMqttClientWithItsSubscriptionAndDisconnectIt() {
        final CompletableFuture<Throwable> disconnected = new CompletableFuture<>();
        final Mqtt5BlockingClient mqtt = Mqtt5Client.builder().identifier("console-listed")
                .serverHost("127.0.0.1").serverPort(broker.mqttPort())
                .simpleAuth().username("dave").password("dave-pw".getBytes(StandardCharsets.UTF_8)).applySimpleAuth()
                .addDisconnectedListener(context -> disconnected.complete(context.getCause()))
                .buildBlocking();
        mqtt.connect();
        mqtt.subscribeWith().topicFilter("console-alerts/#").qos(MqttQos.AT_LEAST_ONCE).send();
        mqtt.subscribeWith().topicFilter("$share/console-team/console-jobs/+").qos(MqttQos.AT_LEAST_ONCE).send();

        show("connections");
        final By row = By.cssSelector("#connection-table tr[data-client='console-listed']");
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            final WebElement r = browser.findElement(row);
            assertThat(r.getAttribute("data-protocol")).isEqualTo("mqtt");
            assertThat(r.findElement(By.className("protocol")).getText()).isEqualTo("mqtt 5.0");
            assertThat(r.findElement(By.className("details")).getText())
                    .isEqualTo("console-alerts/#, $share/console-team/console-jobs/+");
            assertThat(r.getText()).contains("dave").contains("127.0.0.1:");
        });
        final WebElement button = browser.findElement(row).findElement(By.className("disconnect"));
        button.click();
        assertThat(button.getText()).isEqualTo("Really disconnect?");
        button.click();

        // The client hears why (MQTT 5 DISCONNECT, Administrative action) and the row goes away.
        final Throwable cause = disconnected.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
        assertThat(cause).isInstanceOf(Mqtt5DisconnectException.class);
        assertThat(((Mqtt5DisconnectException) cause).getMqttMessage().getReasonCode())
                .isEqualTo(Mqtt5DisconnectReasonCode.ADMINISTRATIVE_ACTION);
        await().atMost(WAIT).untilAsserted(() -> assertThat(browser.findElements(row)).isEmpty());
    }

    @Test
    void shouldCreateAUserGrantAndRevokeARuleSetAQuotaAndDeleteTheUser() throws Exception {
        show("security");
        final By row = By.cssSelector("#user-table tr[data-user='console-erin']");
        type(By.id("user-name"), "console-erin");
        type(By.id("user-password"), "erin-pw");
        browser.findElement(By.cssSelector("#user-form button[type='submit']")).click();
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            assertThat(browser.findElement(By.id("security-done")).getText()).isEqualTo("Saved user console-erin.");
            assertThat(browser.findElement(row).getText()).contains("default").contains("yes");
        });
        // A new user without rules may log in but not publish.
        assertThatThrownBy(() -> sendAs("console-erin", "erin-pw", "console-erin-q"))
                .isInstanceOf(JMSSecurityException.class);

        new Select(browser.findElement(By.id("rule-user"))).selectByValue("console-erin");
        type(By.id("rule-resource"), "Topic:console-erin*");
        browser.findElement(By.cssSelector("#rule-form button[type='submit']")).click();
        final By rule = By.cssSelector("#user-table tr[data-user='console-erin'] .rule");
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> assertThat(browser.findElement(rule)
                .getAttribute("data-rule")).isEqualTo("ALLOW PUB on Topic:console-erin*"));
        sendAs("console-erin", "erin-pw", "console-erin-q"); // granted: the send goes through

        browser.findElement(rule).findElement(By.className("revoke")).click();
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            assertThat(browser.findElement(By.id("security-done")).getText())
                    .isEqualTo("Rule removed from console-erin.");
            assertThat(browser.findElements(rule)).isEmpty();
        });
        assertThatThrownBy(() -> sendAs("console-erin", "erin-pw", "console-erin-q"))
                .isInstanceOf(JMSSecurityException.class);

        type(By.id("quota-namespace"), "console-ns");
        type(By.id("quota-connections"), "7");
        browser.findElement(By.cssSelector("#quota-form button[type='submit']")).click();
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> assertThat(browser.findElement(
                By.cssSelector("#quota-table tr[data-namespace='console-ns'] .max-connections")).getText())
                .isEqualTo("7"));

        final WebElement delete = browser.findElement(row).findElement(By.className("delete"));
        delete.click();
        assertThat(delete.getText()).isEqualTo("Really delete?");
        delete.click();
        await().atMost(WAIT).untilAsserted(() -> assertThat(browser.findElements(row)).isEmpty());
        assertThatThrownBy(() -> sendAs("console-erin", "erin-pw", "console-erin-q"))
                .isInstanceOf(JMSSecurityException.class); // the user is gone: its password no longer opens
    }

    @Test
    void shouldIssueATokenShownOnceThatAClientUsesUntilItIsRevoked() throws Exception {
        show("security");
        final By tokensOfDave = By.cssSelector("#user-table tr[data-user='dave'] button.tokens");
        await().atMost(WAIT).ignoreExceptions().until(() -> browser.findElement(tokensOfDave).isDisplayed());
        browser.findElement(tokensOfDave).click();
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> assertThat(browser.findElement(
                By.cssSelector("#token-panel h3")).getText()).isEqualTo("Bearer tokens of dave"));

        new Select(browser.findElement(By.id("token-lifetime"))).selectByVisibleText("7 days");
        browser.findElement(By.id("issue-token")).click();
        final String token = visible(By.id("issued-token")).getAttribute("value");
        assertThat(token).startsWith("jt_");
        assertThat(browser.findElement(By.id("security-done")).getText())
                .isEqualTo("Issued a token to dave: copy it now, it is not shown again.");
        browser.findElement(By.id("copy-token")).click();
        await().atMost(WAIT).untilAsserted(() -> assertThat(browser.findElement(By.id("token-copied")).getText())
                .isIn("Copied.", "Selected: copy it with Ctrl+C."));
        // Listed by its id (a digest prefix) and issue time: the table never holds the token.
        final String id = IssuedToken.idOfToken(token);
        final By row = By.cssSelector("#token-table tr[data-token='" + id + "']");
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            assertThat(browser.findElement(row).getText()).contains(id).doesNotContain(token);
            assertThat(browser.findElement(row).findElement(By.className("issued-at")).getText()).isNotBlank();
            assertThat(browser.findElement(row).findElement(By.className("expires-at")).getText()).isNotBlank()
                    .doesNotStartWith("expired").doesNotStartWith("never");
        });

        // The token works for a real client: a CloudEvents producer sending with Authorization: Bearer.
        assertThat(cloudEvent("console-token-events", token)).isEqualTo(202);

        // A reload forgets it: the page kept it nowhere, and the broker shows only its id.
        browser.navigate().refresh();
        show("security");
        await().atMost(WAIT).ignoreExceptions().until(() -> browser.findElement(tokensOfDave).isDisplayed());
        browser.findElement(tokensOfDave).click();
        await().atMost(WAIT).ignoreExceptions().until(() -> browser.findElement(row).isDisplayed());
        assertThat(browser.findElements(By.id("issued-token"))).isEmpty();
        assertThat(browser.getPageSource()).doesNotContain(token);

        final WebElement revoke = browser.findElement(row).findElement(By.className("revoke-token"));
        revoke.click();
        assertThat(revoke.getText()).isEqualTo("Really revoke?");
        revoke.click();
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(browser.findElement(By.id("security-done")).getText())
                    .isEqualTo("Revoked token " + id + " of dave.");
            assertThat(browser.findElements(row)).isEmpty();
        });
        assertThat(cloudEvent("console-token-events", token)).isEqualTo(401);
    }

    /** Sends one CloudEvent (binary mode) to {@code topic} with a bearer token; answers the HTTP status. */
    private static int cloudEvent(final String topic, final String token) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(broker.httpBase() + "/topics/" + topic)).timeout(WAIT)
                .header("Authorization", "Bearer " + token).header("ce-specversion", "1.0")
                .header("ce-id", "console-token").header("ce-source", "/console-test").header("ce-type", "token.used")
                .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString("with a token"))
                .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** Sends one message to {@code queue} with Qpid JMS as {@code user}. */
    private static void sendAs(final String user, final String password, final String queue) throws Exception {
        try (Connection c = new JmsConnectionFactory(user, password, broker.amqpUri()).createConnection()) {
            c.start();
            final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            s.createProducer(s.createQueue(queue)).send(s.createTextMessage("from " + user));
        }
    }

    private static void type(final By field, final String text) {
        final WebElement e = browser.findElement(field);
        e.clear();
        e.sendKeys(text);
    }

    private static Connection jms() throws Exception {
        final Connection c = new JmsConnectionFactory("dave", "dave-pw", broker.amqpUri()).createConnection();
        c.start();
        return c;
    }

    /** Opens a page of the console by its navigation link, as a user would. */
    private static void show(final String page) {
        browser.findElement(By.cssSelector("header nav a[href='#" + page + "']")).click();
        await().atMost(WAIT).until(() -> browser.findElement(By.id(page)).isDisplayed());
    }

    private static WebElement visible(final By by) {
        await().atMost(WAIT).ignoreExceptions().until(() -> browser.findElement(by).isDisplayed());
        return browser.findElement(by);
    }
}
