package io.junction.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Date;
import org.junit.jupiter.api.Test;

class SelfSignedCertificateTest {
    @Test
    void shouldMakeAValidSelfSignedCertificate() throws Exception {
        final SelfSignedCertificate c = SelfSignedCertificate.generate("broker.example");
        c.certificate.checkValidity(new Date());
        c.certificate.verify(c.keyPair.getPublic());
        assertThat(c.certificate.getSubjectX500Principal().getName()).isEqualTo("CN=broker.example");
        assertThat(c.certificate.getIssuerX500Principal()).isEqualTo(c.certificate.getSubjectX500Principal());
    }
}
