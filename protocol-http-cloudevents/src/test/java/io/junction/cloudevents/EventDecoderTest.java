package io.junction.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.cloudevents.CloudEvent;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EventDecoderTest {
    private final EventDecoder decoder = new EventDecoder(new ObjectMapper(), 1024, 10);

    private static FullHttpRequest request(final String contentType, final String body, final String... headers) {
        final FullHttpRequest r = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/topics/t",
                Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
        if (contentType != null) {
            r.headers().set("content-type", contentType);
        }
        for (int i = 0; i < headers.length; i += 2) {
            r.headers().add(headers[i], headers[i + 1]);
        }
        return r;
    }

    private List<CloudEvent> decode(final FullHttpRequest r) {
        try {
            return decoder.decode(r);
        } finally {
            r.release();
        }
    }

    @Test
    void shouldDecodeBinaryModeWithPercentEncodedHeaders() {
        final CloudEvent e = decode(request("text/plain", "hello", "ce-specversion", "1.0", "ce-id", "1",
                "ce-source", "/s", "ce-type", "t", "CE-Subject", "caf%C3%A9%20au%20lait", "ce-time",
                "2026-01-01T00:00:00Z")).get(0);
        assertThat(e.getSubject()).isEqualTo("café au lait");
        assertThat(e.getDataContentType()).isEqualTo("text/plain");
        assertThat(e.getData().toBytes()).isEqualTo("hello".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void shouldDecodeStructuredModeDataByContentType() {
        final CloudEvent json = decode(request("application/cloudevents+json; charset=utf-8",
                "{\"specversion\":\"1.0\",\"id\":\"1\",\"source\":\"/s\",\"type\":\"t\",\"data\":{\"a\":1}}")).get(0);
        assertThat(new String(json.getData().toBytes(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
        final CloudEvent text = decode(request("application/cloudevents+json",
                "{\"specversion\":\"1.0\",\"id\":\"1\",\"source\":\"/s\",\"type\":\"t\","
                        + "\"datacontenttype\":\"text/plain\",\"data\":\"hi\",\"n\":5}")).get(0);
        assertThat(text.getData().toBytes()).isEqualTo("hi".getBytes(StandardCharsets.UTF_8));
        assertThat(text.getExtension("n")).isEqualTo(5);
        final CloudEvent b64 = decode(request("application/cloudevents+json",
                "{\"specversion\":\"1.0\",\"id\":\"1\",\"source\":\"/s\",\"type\":\"t\",\"data_base64\":\"AAEC\"}"))
                .get(0);
        assertThat(b64.getData().toBytes()).containsExactly(0, 1, 2);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "missing id        | {\"specversion\":\"1.0\",\"source\":\"/s\",\"type\":\"t\"}                  | id",
        "bad specversion   | {\"specversion\":\"0.3\",\"id\":\"1\",\"source\":\"/s\",\"type\":\"t\"}    | specversion",
        "bad source        | {\"specversion\":\"1.0\",\"id\":\"1\",\"source\":\"a b\",\"type\":\"t\"}   | source",
        "bad time          | {\"specversion\":\"1.0\",\"id\":\"1\",\"source\":\"/s\",\"type\":\"t\",\"time\":\"yesterday\"} | time",
        "numeric type      | {\"specversion\":\"1.0\",\"id\":\"1\",\"source\":\"/s\",\"type\":5}         | type",
        "bad extension     | {\"specversion\":\"1.0\",\"id\":\"1\",\"source\":\"/s\",\"type\":\"t\",\"Bad_Name\":\"x\"} | Bad_Name",
        "object extension  | {\"specversion\":\"1.0\",\"id\":\"1\",\"source\":\"/s\",\"type\":\"t\",\"ext\":{}} | ext",
    })
    void shouldNameTheBadAttribute(final String name, final String body, final String attribute) {
        assertThatThrownBy(() -> decode(request("application/cloudevents+json", body)))
                .isInstanceOfSatisfying(Problem.class, p -> {
                    assertThat(p.status().code()).isEqualTo(400);
                    assertThat(p.attribute()).isEqualTo(attribute);
                });
    }

    @Test
    void shouldRefuseMalformedJsonUnknownFormatsAndLargeData() {
        assertThatThrownBy(() -> decode(request("application/cloudevents+json", "{nope")))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.status().code()).isEqualTo(400));
        assertThatThrownBy(() -> decode(request("application/cloudevents+xml", "<x/>")))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.status().code()).isEqualTo(415));
        assertThatThrownBy(() -> decode(request("text/plain", "no headers")))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.status().code()).isEqualTo(415));
        assertThatThrownBy(() -> decode(request("text/plain", "x".repeat(2000), "ce-specversion", "1.0",
                "ce-id", "1", "ce-source", "/s", "ce-type", "t")))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.status().code()).isEqualTo(413));
        assertThatThrownBy(() -> decode(request("text/plain", "", "ce-specversion", "1.0", "ce-id", "1",
                "ce-source", "/s", "ce-type", "t", "ce-subject", "%C0%A0")))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.attribute()).isEqualTo("subject"));
    }

    @Test
    void shouldNameTheIndexOfABadBatchEvent() {
        final String ok = "{\"specversion\":\"1.0\",\"id\":\"1\",\"source\":\"/s\",\"type\":\"t\"}";
        assertThat(decode(request("application/cloudevents-batch+json", "[" + ok + "," + ok + "]"))).hasSize(2);
        assertThat(decode(request("application/cloudevents-batch+json", "[]"))).isEmpty();
        assertThatThrownBy(() -> decode(request("application/cloudevents-batch+json",
                "[" + ok + ",{\"specversion\":\"1.0\",\"id\":\"2\",\"source\":\"/s\"}]")))
                .isInstanceOfSatisfying(Problem.class, p -> {
                    assertThat(p.index()).isEqualTo(1);
                    assertThat(p.attribute()).isEqualTo("type");
                });
    }

    @Test
    void shouldClassifyRetriableStatusesAsKnativeDoes() {
        assertThat(PushDispatcher.retriable(400)).isFalse();
        assertThat(PushDispatcher.retriable(403)).isFalse();
        assertThat(PushDispatcher.retriable(404)).isTrue();
        assertThat(PushDispatcher.retriable(408)).isTrue();
        assertThat(PushDispatcher.retriable(409)).isTrue();
        assertThat(PushDispatcher.retriable(429)).isTrue();
        assertThat(PushDispatcher.retriable(503)).isTrue();
        assertThat(PushDispatcher.retryAfterMillis("2")).isEqualTo(2000);
        assertThat(PushDispatcher.retryAfterMillis(null)).isZero();
        assertThat(SinkClient.encode("a b\"%é")).isEqualTo("a%20b%22%25%C3%A9");
    }
}
