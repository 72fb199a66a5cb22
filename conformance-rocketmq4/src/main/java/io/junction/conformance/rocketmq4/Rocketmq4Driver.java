package io.junction.conformance.rocketmq4;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.rocketmq.common.MQVersion;

/**
 * Entry point: {@code Rocketmq4Driver <namesrvAddr> <name prefix> <deadline seconds> <scenario>[,<scenario>...]}.
 *
 * <p>Plays the scenarios side by side, prints {@code EVENT done} or {@code EVENT failed} for each and
 * {@code EVENT end} last, and exits with 0 when every scenario finished, 1 otherwise, 2 on a usage error. Exits
 * explicitly: client threads left behind by a failed scenario must not keep the JVM alive.
 */
public final class Rocketmq4Driver {
    private Rocketmq4Driver() {
    }

    static Map<String, Scenario> scenarios() {
        final Map<String, Scenario> all = new LinkedHashMap<>();
        for (Scenario s : new Scenario[] {new SendScenario(), new PushScenario(false), new PushScenario(true),
            new PullScenario(), new DelayScenario(), new TransactionScenario(), new NewGroupScenario(),
            new OrderlyScenario(true), new OrderlyScenario(false), new RequestScenario()}) {
            all.put(s.name(), s);
        }
        return all;
    }

    public static void main(final String[] args) {
        final Map<String, Scenario> known = scenarios();
        if (args.length != 4) {
            System.err.println("usage: Rocketmq4Driver <namesrvAddr> <prefix> <deadline seconds> <scenario,...>; "
                    + "scenarios: " + String.join(",", known.keySet()));
            System.exit(2);
        }
        final long deadlineSeconds = Long.parseLong(args[2]);
        final DriverContext context = new DriverContext(args[0], args[1],
                System.nanoTime() + TimeUnit.SECONDS.toNanos(deadlineSeconds));
        final List<Scenario> chosen = new ArrayList<>();
        for (String name : args[3].split(",")) {
            final Scenario s = known.get(name.trim());
            if (s == null) {
                System.err.println("unknown scenario " + name + "; known: " + String.join(",", known.keySet()));
                System.exit(2);
            }
            chosen.add(s);
        }
        Events.emit("client", "version", MQVersion.getVersionDesc(
                MQVersion.CURRENT_VERSION));
        final ExecutorService pool = Executors.newFixedThreadPool(chosen.size());
        final Map<Scenario, Future<?>> running = new LinkedHashMap<>();
        for (Scenario s : chosen) {
            running.put(s, pool.submit(() -> {
                s.run(context);
                return null;
            }));
        }
        boolean allDone = true;
        for (Map.Entry<Scenario, Future<?>> e : running.entrySet()) {
            final String name = e.getKey().name();
            try {
                // A little past the scenarios' own deadline: they give up by it and report.
                e.getValue().get(context.millisLeft() + 10_000, TimeUnit.MILLISECONDS);
                Events.emit("done", "scenario", name);
            } catch (TimeoutException ex) {
                allDone = false;
                Events.emit("failed", "scenario", name, "error", "did not finish by the deadline");
            } catch (Exception ex) {
                allDone = false;
                final Throwable cause = ex.getCause() != null ? ex.getCause() : ex;
                cause.printStackTrace();
                Events.emit("failed", "scenario", name, "error", cause.toString());
            }
        }
        Events.emit("end", "ok", allDone);
        System.exit(allDone ? 0 : 1);
    }
}
