package io.junction.conformance.console;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;

/**
 * Debian's headless Chromium driven through its chromedriver, with a profile of its own that is deleted on close.
 * Opening it is skipped (an assumption) only when chromedriver is not installed ({@code apt-get install chromium
 * chromium-driver}, as {@code .ci/run} does).
 */
final class HeadlessChromium implements AutoCloseable {

    private static final String CHROMEDRIVER = "/usr/bin/chromedriver";
    private static final String CHROMIUM = "/usr/bin/chromium";

    private final WebDriver driver;
    private final Path profile;

    private HeadlessChromium(final WebDriver driver, final Path profile) {
        this.driver = driver;
        this.profile = profile;
    }

    static HeadlessChromium open() throws IOException {
        assumeTrue(new File(CHROMEDRIVER).canExecute(), "chromedriver is not installed at " + CHROMEDRIVER
                + " (apt-get install chromium chromium-driver)");
        final Path profile = Files.createTempDirectory("console-chromium");
        final ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1280,1000", "--user-data-dir=" + profile);
        options.setCapability("goog:loggingPrefs", Map.of(LogType.BROWSER, "ALL"));
        final ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort().build();
        return new HeadlessChromium(new ChromeDriver(service, options), profile);
    }

    WebDriver driver() {
        return driver;
    }

    /** Prints the page's console output, so a failing page explains itself in the test report. */
    void printLog() {
        for (final LogEntry e : driver.manage().logs().get(LogType.BROWSER)) {
            System.out.println("[browser] " + e.getLevel() + " " + e.getMessage());
        }
    }

    @Override
    public void close() {
        driver.quit();
        try (Stream<Path> files = Files.walk(profile)) {
            files.sorted((a, b) -> b.getNameCount() - a.getNameCount()).map(Path::toFile).forEach(File::delete);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
