package io.junction.spi;

import java.util.Objects;

/**
 * One place clients reach the broker, as printed in the ready line and reported by {@code /health}.
 *
 * @param name    a label, usually the front-end name ({@code remoting}, {@code http})
 * @param address what a client is given: {@code host:port} for plain TCP protocols, a URL for HTTP-based ones
 */
public record Endpoint(String name, String address) {

    public Endpoint {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(address, "address");
    }

    /** {@code host:port}. */
    public static Endpoint tcp(final String name, final String host, final int port) {
        return new Endpoint(name, hostPort(host, port));
    }

    /** {@code scheme://host:port/path}. */
    public static Endpoint url(final String name, final String scheme, final String host, final int port,
                               final String path) {
        return new Endpoint(name, scheme + "://" + hostPort(host, port) + path);
    }

    /** IPv6 literals get brackets so the port stays readable. */
    private static String hostPort(final String host, final int port) {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    @Override
    public String toString() {
        return name + "=" + address;
    }
}
