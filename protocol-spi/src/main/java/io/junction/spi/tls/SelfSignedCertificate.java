package io.junction.spi.tls;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;

/**
 * A self-signed EC (P-256) certificate made with the JDK alone (no BouncyCastle, no {@code sun.security} internals), for a
 * TLS listener that was given no certificate. The RocketMQ 5.x clients trust any server certificate; other clients
 * can pin this one, because {@link #loadOrCreate} keeps it in the data directory and reuses it on every later start.
 *
 * <p>The certificate is the minimal X.509 v1 DER structure:
 * <pre>
 * Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm (ecdsa-with-SHA256), signature BIT STRING }
 * TBSCertificate ::= SEQUENCE { serialNumber INTEGER, signature AlgorithmIdentifier, issuer Name,
 *                               validity SEQUENCE { notBefore UTCTime, notAfter UTCTime }, subject Name,
 *                               subjectPublicKeyInfo (the key's own X.509 encoding) }
 * Name ::= SEQUENCE { SET { SEQUENCE { OID 2.5.4.3 (CN), UTF8String } } }
 * </pre>
 */
public final class SelfSignedCertificate {
    /** AlgorithmIdentifier ecdsa-with-SHA256 (1.2.840.10045.4.3.2, no parameters). */
    private static final byte[] ECDSA_WITH_SHA256 = {0x30, 0x0a, 0x06, 0x08, 0x2a, (byte) 0x86, 0x48, (byte) 0xce,
        0x3d, 0x04, 0x03, 0x02};
    private static final byte[] OID_CN = {0x06, 0x03, 0x55, 0x04, 0x03};
    private static final DateTimeFormatter UTC_TIME = DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'");

    /** File names inside the directory given to {@link #loadOrCreate}; PEM, the key as unencrypted PKCS#8. */
    public static final String CERTIFICATE_FILE = "self-signed.crt";
    public static final String KEY_FILE = "self-signed.key";

    private final PrivateKey privateKey;
    private final X509Certificate certificate;

    private SelfSignedCertificate(final PrivateKey privateKey, final X509Certificate certificate) {
        this.privateKey = privateKey;
        this.certificate = certificate;
    }

    public PrivateKey privateKey() {
        return privateKey;
    }

    public X509Certificate certificate() {
        return certificate;
    }

    /**
     * The certificate kept in {@code directory}, or a new one for {@code commonName} written there first. The key is
     * written before the certificate, each through a temporary file and a rename, so a crash leaves either both files
     * or a state this method repairs by generating again; the key file is readable by the owner only.
     *
     * @throws IOException if the directory cannot be written or holds files that are not a certificate and its key
     */
    public static SelfSignedCertificate loadOrCreate(final Path directory, final String commonName)
            throws IOException {
        final Path certFile = directory.resolve(CERTIFICATE_FILE);
        final Path keyFile = directory.resolve(KEY_FILE);
        try {
            if (Files.isRegularFile(certFile) && Files.isRegularFile(keyFile)) {
                return load(certFile, keyFile);
            }
            final SelfSignedCertificate made = generate(commonName);
            Files.createDirectories(directory);
            writeAtomically(keyFile, pem("PRIVATE KEY", made.privateKey.getEncoded()), true);
            writeAtomically(certFile, pem("CERTIFICATE", made.certificate.getEncoded()), false);
            return made;
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IOException("the self-signed certificate in " + directory + " is unusable (" + e.getMessage()
                    + "); delete " + CERTIFICATE_FILE + " and " + KEY_FILE + " to make a new one", e);
        }
    }

    private static SelfSignedCertificate load(final Path certFile, final Path keyFile)
            throws IOException, GeneralSecurityException {
        final X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(unpem(Files.readString(certFile), "CERTIFICATE")));
        final PrivateKey key = KeyFactory.getInstance(cert.getPublicKey().getAlgorithm())
                .generatePrivate(new PKCS8EncodedKeySpec(unpem(Files.readString(keyFile), "PRIVATE KEY")));
        return new SelfSignedCertificate(key, cert);
    }

    private static String pem(final String type, final byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static byte[] unpem(final String text, final String type) {
        final String begin = "-----BEGIN " + type + "-----";
        final String end = "-----END " + type + "-----";
        final int from = text.indexOf(begin);
        final int to = text.indexOf(end);
        if (from < 0 || to < from) {
            throw new IllegalArgumentException("no PEM " + type + " block");
        }
        return Base64.getMimeDecoder().decode(text.substring(from + begin.length(), to));
    }

    private static void writeAtomically(final Path target, final String content, final boolean ownerOnly)
            throws IOException {
        final Path temp = target.resolveSibling(target.getFileName() + ".tmp");
        Files.deleteIfExists(temp);
        if (ownerOnly && temp.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.createFile(temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        Files.writeString(temp, content, StandardCharsets.US_ASCII);
        try {
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** A new key pair and a certificate for {@code commonName}, valid from a day ago for ten years. */
    static SelfSignedCertificate generate(final String commonName) throws GeneralSecurityException {
        final SecureRandom random = new SecureRandom();
        // EC rather than RSA: a P-256 key takes milliseconds to make, an RSA-2048 one ~200 ms of every start.
        final KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(256, random);
        final KeyPair pair = generator.generateKeyPair();
        final ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
        final byte[] name = sequence(set(sequence(OID_CN, tlv(0x0c, commonName.getBytes(StandardCharsets.UTF_8)))));
        final byte[] tbs = sequence(
                tlv(0x02, new BigInteger(63, random).add(BigInteger.ONE).toByteArray()),
                ECDSA_WITH_SHA256,
                name,
                sequence(utcTime(now.minusDays(1)), utcTime(now.plusYears(10))),
                name,
                pair.getPublic().getEncoded());
        final Signature signer = Signature.getInstance("SHA256withECDSA");
        signer.initSign(pair.getPrivate());
        signer.update(tbs);
        final byte[] signature = signer.sign();
        final byte[] bits = new byte[signature.length + 1];
        System.arraycopy(signature, 0, bits, 1, signature.length);
        final byte[] der = sequence(tbs, ECDSA_WITH_SHA256, tlv(0x03, bits));
        final X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(der));
        cert.verify(pair.getPublic());
        return new SelfSignedCertificate(pair.getPrivate(), cert);
    }

    private static byte[] utcTime(final ZonedDateTime t) {
        return tlv(0x17, UTC_TIME.format(t).getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] sequence(final byte[]... parts) {
        return tlv(0x30, concat(parts));
    }

    private static byte[] set(final byte[]... parts) {
        return tlv(0x31, concat(parts));
    }

    private static byte[] concat(final byte[]... parts) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** One DER type-length-value. */
    static byte[] tlv(final int tag, final byte[] value) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream(value.length + 6);
        out.write(tag);
        final int len = value.length;
        if (len < 0x80) {
            out.write(len);
        } else if (len < 0x100) {
            out.write(0x81);
            out.write(len);
        } else if (len < 0x10000) {
            out.write(0x82);
            out.write(len >> 8);
            out.write(len);
        } else {
            out.write(0x83);
            out.write(len >> 16);
            out.write(len >> 8);
            out.write(len);
        }
        out.writeBytes(value);
        return out.toByteArray();
    }
}
