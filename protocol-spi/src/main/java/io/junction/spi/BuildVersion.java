package io.junction.spi;

/**
 * Junction's version as built: the {@code Implementation-Version} of the broker jar's manifest, which Maven fills from
 * the project version. Classes run from a build directory (unit tests) have no manifest and report
 * {@link #DEVELOPMENT}.
 */
public final class BuildVersion {
    /** What a build without a manifest reports. */
    public static final String DEVELOPMENT = "development";

    private static final String VERSION = read();

    private BuildVersion() {
    }

    /** The version, e.g. {@code 0.1.0-SNAPSHOT}. */
    public static String current() {
        return VERSION;
    }

    private static String read() {
        final String v = BuildVersion.class.getPackage().getImplementationVersion();
        return v == null || v.isBlank() ? DEVELOPMENT : v;
    }
}
