package io.junction.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.junction.core.filter.MessageFilter;
import io.junction.core.message.Message;
import io.junction.tenancy.Principal;
import java.net.URI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SubscriptionTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final CloudEventMapping MAPPING = new CloudEventMapping("http://b", "t");

    private static JsonNode json(final String text) {
        try {
            return JSON.readTree(text);
        } catch (final Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static Message event(final String type, final String subject) {
        return MAPPING.toMessage("topic", CloudEventBuilder.v1().withId("1").withSource(URI.create("/s"))
                .withType(type).withSubject(subject).build());
    }

    private static boolean matches(final MessageFilter f, final Message m) {
        return f.matches(m.properties());
    }

    @Test
    void shouldApplyDefaultsAndRoundTripThroughItsStoredForm() {
        final Subscription pull = Subscription.parse("s1", json("{\"topic\":\"t\"}"));
        assertThat(pull.push()).isFalse();
        assertThat(pull.visibilitySeconds()).isEqualTo(30);
        assertThat(pull.delivery().retries()).isEqualTo(16);
        final Subscription push = Subscription.parse("s2", json("{\"topic\":\"t\",\"sink\":\"http://h:1/p\","
                + "\"delivery\":{\"retries\":2,\"backoffMillis\":100,\"backoffPolicy\":\"linear\","
                + "\"deadLetterSink\":\"http://h:2/dl\",\"timeoutMillis\":500},\"visibilitySeconds\":5}"));
        assertThat(Subscription.fromStored("s2", push.toJson(JSON).toString(), JSON)).isEqualTo(push);
        final Subscription owned = push.ownedBy(new Principal("alice", "acme"));
        assertThat(Subscription.fromStored("s2", owned.toJson(JSON).toString(), JSON)).isEqualTo(owned);
        assertThat(Subscription.parse("s3", json("{\"topic\":\"t\",\"owner\":{\"user\":\"root\"}}")).owner())
                .as("a client cannot name the owner").isNull();
    }

    @Test
    void shouldBackOffLinearlyOrExponentially() {
        final Subscription.Delivery linear = new Subscription.Delivery(3, 100, false, null, 1000);
        final Subscription.Delivery exp = new Subscription.Delivery(3, 100, true, null, 1000);
        assertThat(new long[] {linear.backoff(0), linear.backoff(1), linear.backoff(2)}).containsExactly(100, 100, 100);
        assertThat(new long[] {exp.backoff(0), exp.backoff(1), exp.backoff(2)}).containsExactly(100, 200, 400);
        assertThat(exp.backoff(60)).isEqualTo(Subscription.Delivery.MAX_BACKOFF_MILLIS);
    }

    @Test
    void shouldCompileEveryFilterForm() {
        final Message a = event("com.a.created", "x.png");
        final Message b = event("com.b.deleted", "y.txt");
        final MessageFilter knative = Subscription.compileFilter(json("{\"attributes\":{\"type\":\"com.a.created\"}}"));
        assertThat(matches(knative, a)).isTrue();
        assertThat(matches(knative, b)).isFalse();
        final MessageFilter present = Subscription.compileFilter(json("{\"attributes\":{\"subject\":\"\"}}"));
        assertThat(matches(present, a)).isTrue();
        final MessageFilter api = Subscription.compileFilter(json(
                "{\"filters\":[{\"any\":[{\"prefix\":{\"type\":\"com.b.\"}},{\"suffix\":{\"subject\":\".png\"}}]},"
                        + "{\"not\":{\"exact\":{\"type\":\"com.b.deleted\"}}}]}"));
        assertThat(matches(api, a)).isTrue();
        assertThat(matches(api, b)).isFalse();
        final MessageFilter sql = Subscription.compileFilter(json("{\"sql\":\"type LIKE 'com.b.%'\"}"));
        assertThat(matches(sql, a)).isFalse();
        assertThat(matches(sql, b)).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "no topic          | {}                                                         | topic",
        "https sink        | {\"topic\":\"t\",\"sink\":\"https://h/\"}                  | sink",
        "bad policy        | {\"topic\":\"t\",\"delivery\":{\"backoffPolicy\":\"x\"}}   | delivery.backoffPolicy",
        "negative retries  | {\"topic\":\"t\",\"delivery\":{\"retries\":-1}}            | delivery.retries",
        "bad dialect       | {\"topic\":\"t\",\"filter\":{\"nope\":{}}}                 | filter",
        "bad sql           | {\"topic\":\"t\",\"filter\":{\"sql\":\"type ===\"}}        | filter",
        "zero visibility   | {\"topic\":\"t\",\"visibilitySeconds\":0}                  | visibilitySeconds",
    })
    void shouldNameTheBadField(final String name, final String body, final String field) {
        assertThatThrownBy(() -> Subscription.parse("s", json(body)))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.attribute()).isEqualTo(field));
    }
}
