package io.junction.broker.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class HeapLauncherTest {
    private static final String JAR = "/opt/junction/junction.jar";

    @Test
    void shouldRelaunchOnlyWhenNoHeapOptionWasGiven() {
        final String[] start = {"--data-dir", "/tmp/d"};
        assertThat(HeapLauncher.shouldRelaunch(List.of(), start, JAR)).isTrue();
        assertThat(HeapLauncher.shouldRelaunch(List.of("-Dfoo=bar", "-XX:+UseG1GC"), start, JAR)).isTrue();
        for (String heap : List.of("-Xmx1g", "-XX:MaxHeapSize=512m", "-XX:MaxRAMPercentage=10", "-XX:MaxRAM=2g",
                "-XX:MaxRAMFraction=8")) {
            assertThat(HeapLauncher.shouldRelaunch(List.of("-Dfoo=bar", heap), start, JAR)).as(heap).isFalse();
        }
    }

    @Test
    void shouldRunQuickCommandsAndUnknownLaunchersInThisJvm() {
        for (String quick : List.of("--help", "-h", "--version", "-V", "admin")) {
            assertThat(HeapLauncher.shouldRelaunch(List.of(), new String[] {quick}, JAR)).as(quick).isFalse();
        }
        assertThat(HeapLauncher.shouldRelaunch(List.of(), new String[0], "")).isFalse();
    }

    @Test
    void shouldKeepTheUsersOptionsAndArgumentsAndAddTheBounds() {
        final List<String> command = HeapLauncher.childCommand(List.of("-Dio.netty.x=1"), JAR,
                "io.junction.broker.Main", new String[] {"--set", "mqtt.port=1884"});
        assertThat(command.get(0)).endsWith("/bin/java");
        assertThat(command.subList(1, command.size())).containsExactly("-Dio.netty.x=1", "-Xmx256m",
                "-XX:MaxDirectMemorySize=128m", "-Djunction.launched=true", "-cp", JAR, "io.junction.broker.Main",
                "--set", "mqtt.port=1884");
    }

    @Test
    void shouldKeepTheUsersDirectMemoryBound() {
        assertThat(HeapLauncher.childCommand(List.of("-XX:MaxDirectMemorySize=1g"), JAR, "M", new String[0]))
                .contains("-XX:MaxDirectMemorySize=1g").doesNotContain("-XX:MaxDirectMemorySize=128m");
    }
}
