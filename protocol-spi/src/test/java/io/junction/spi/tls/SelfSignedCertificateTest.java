package io.junction.spi.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.Signature;
import java.util.Date;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SelfSignedCertificateTest {
    @TempDir
    Path dir;

    @Test
    void shouldMakeAValidSelfSignedCertificate() throws Exception {
        final SelfSignedCertificate c = SelfSignedCertificate.loadOrCreate(dir.resolve("tls"), "broker.example");
        c.certificate().checkValidity(new Date());
        c.certificate().verify(c.certificate().getPublicKey());
        assertThat(c.certificate().getSubjectX500Principal().getName()).isEqualTo("CN=broker.example");
        assertThat(c.certificate().getIssuerX500Principal()).isEqualTo(c.certificate().getSubjectX500Principal());
        assertThat(signsFor(c)).as("the private key belongs to the certificate's public key").isTrue();
    }

    @Test
    void shouldReuseTheCertificateKeptInTheDirectory() throws Exception {
        final SelfSignedCertificate first = SelfSignedCertificate.loadOrCreate(dir, "broker.example");
        final SelfSignedCertificate second = SelfSignedCertificate.loadOrCreate(dir, "other.example");
        assertThat(second.certificate()).isEqualTo(first.certificate());
        assertThat(second.privateKey().getEncoded()).isEqualTo(first.privateKey().getEncoded());
        assertThat(Files.readString(dir.resolve(SelfSignedCertificate.CERTIFICATE_FILE)))
                .startsWith("-----BEGIN CERTIFICATE-----\n");
        assertThat(PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dir.resolve(SelfSignedCertificate.KEY_FILE)))).isEqualTo("rw-------");
        assertThat(dir.resolve(SelfSignedCertificate.KEY_FILE + ".tmp")).doesNotExist();
    }

    @Test
    void shouldMakeANewPairWhenOnlyTheKeySurvivedACrash() throws Exception {
        final SelfSignedCertificate first = SelfSignedCertificate.loadOrCreate(dir, "broker.example");
        Files.delete(dir.resolve(SelfSignedCertificate.CERTIFICATE_FILE));
        final SelfSignedCertificate second = SelfSignedCertificate.loadOrCreate(dir, "broker.example");
        assertThat(second.certificate()).isNotEqualTo(first.certificate());
        assertThat(signsFor(second)).isTrue();
    }

    @Test
    void shouldNameTheFilesWhenTheyAreGarbage() throws Exception {
        SelfSignedCertificate.loadOrCreate(dir, "broker.example");
        Files.writeString(dir.resolve(SelfSignedCertificate.KEY_FILE), "not a key");
        assertThatThrownBy(() -> SelfSignedCertificate.loadOrCreate(dir, "broker.example"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(dir.toString())
                .hasMessageContaining(SelfSignedCertificate.KEY_FILE);
    }

    private static boolean signsFor(final SelfSignedCertificate c) throws Exception {
        final byte[] data = {1, 2, 3};
        final Signature signer = Signature.getInstance("SHA256withECDSA");
        signer.initSign(c.privateKey());
        signer.update(data);
        final byte[] signature = signer.sign();
        final Signature verifier = Signature.getInstance("SHA256withECDSA");
        verifier.initVerify(c.certificate().getPublicKey());
        verifier.update(data);
        return verifier.verify(signature);
    }
}
