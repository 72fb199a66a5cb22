package io.junction.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AuthorizationHeaderTest {

    @Test
    void shouldReadTheJavaClientsHeader() {
        final AuthorizationHeader h = AuthorizationHeader.parse(
                "MQv2-HMAC-SHA1 Credential=alice, SignedHeaders=x-mq-date-time, Signature=0A1B2C");
        assertThat(h).isEqualTo(new AuthorizationHeader("alice", "0A1B2C"));
    }

    @Test
    void shouldRefuseOtherSchemesAndBrokenHeaders() {
        assertThat(AuthorizationHeader.parse(null)).isNull();
        assertThat(AuthorizationHeader.parse("Basic YWxpY2U6cHc=")).isNull();
        assertThat(AuthorizationHeader.parse("MQv2-HMAC-SHA1 Credential=alice, SignedHeaders=x-mq-date-time"))
                .isNull();
        assertThat(AuthorizationHeader.parse("MQv2-HMAC-SHA1 Credential=, SignedHeaders=x-mq-date-time, Signature=AB"))
                .isNull();
        assertThat(AuthorizationHeader.parse("MQv2-HMAC-SHA1 Credential=a, SignedHeaders=host, Signature=AB"))
                .isNull();
        assertThat(AuthorizationHeader.parse(
                "MQv2-HMAC-SHA1 Credential=a, Credential=b, SignedHeaders=x-mq-date-time, Signature=AB")).isNull();
        assertThat(AuthorizationHeader.parse("MQv2-HMAC-SHA1 garbage")).isNull();
    }
}
