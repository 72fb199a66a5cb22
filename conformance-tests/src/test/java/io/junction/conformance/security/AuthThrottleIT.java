package io.junction.conformance.security;

import static io.junction.conformance.security.SecuredHttp.basic;
import static io.junction.conformance.security.SecuredHttp.http;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5Client;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5ConnAckException;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Repeated failures from one host are throttled across protocols, and the throttle lifts after its window. */
@WithBroker(settings = {SecurityCast.ON, SecurityCast.KEY_SETTING, SecurityCast.MQTT_TIMEOUT,
        "security.max-failures=3", "security.failure-window-ms=3000"}, seed = SecurityCast.class)
class AuthThrottleIT {

    @Test
    void repeatedFailuresAreThrottledThenForgiven(final RunningBroker broker) throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(connect(broker, "alice", "guess-" + i)).isFalse();
        }
        final long throttledAt = System.nanoTime();
        assertThat(connect(broker, "alice", "alice-pw")).as("right password, throttled").isFalse();
        assertThat(http(broker, "POST", "/topics/t", basic("alice", "alice-pw"), "text/plain", "x",
                Map.of("ce-id", "1", "ce-source", "/s", "ce-type", "t", "ce-specversion", "1.0")).statusCode())
                .as("the same host over HTTP").isEqualTo(401);
        final String metrics = http(broker, "GET", "/metrics", null, null, null, Map.of()).body();
        assertThat(metrics).contains("reason=\"throttled\"");
        final long waitMs = 3_200 - Duration.ofNanos(System.nanoTime() - throttledAt).toMillis();
        if (waitMs > 0) {
            Thread.sleep(waitMs); // the throttle's window is the thing under test
        }
        assertThat(connect(broker, "alice", "alice-pw")).as("after the window").isTrue();
    }

    private static boolean connect(final RunningBroker broker, final String user, final String password) {
        final Mqtt5BlockingClient c = Mqtt5Client.builder().identifier("t-" + System.nanoTime())
                .serverHost("127.0.0.1").serverPort(broker.port("mqtt.port")).simpleAuth().username(user)
                .password(password.getBytes(StandardCharsets.UTF_8)).applySimpleAuth().buildBlocking();
        try {
            c.connect();
            c.disconnect();
            return true;
        } catch (final Mqtt5ConnAckException e) {
            return false;
        }
    }
}
