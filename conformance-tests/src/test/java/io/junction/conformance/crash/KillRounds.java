package io.junction.conformance.crash;

import java.security.SecureRandom;
import java.util.Random;

/**
 * The schedule the kill tests share: {@code -Djunction.crash.kills} rounds, each of which starts the broker on the
 * same data directory, loads it and kills it after a random 0.5 to 2.5 s. Every random choice of a run comes from one
 * seed, printed at the start so that {@code -Djunction.crash.seed} replays the run.
 */
final class KillRounds {
    /** One round of a kill test: start (recover), load, kill, clean up. */
    @FunctionalInterface
    interface Round {
        void run(int round) throws Exception;
    }

    private final int kills;
    private final Random random;

    private KillRounds(final int kills, final Random random) {
        this.kills = kills;
        this.random = random;
    }

    /** The rounds and seed the system properties ask for (a fresh seed unless one is given), announced for replay. */
    static KillRounds fromSystemProperties(final String test, final int defaultKills) {
        final int kills = Integer.getInteger("junction.crash.kills", defaultKills);
        final long seed = Long.getLong("junction.crash.seed", new SecureRandom().nextLong());
        System.out.println(test + ": " + kills + " kills, seed " + seed + " (replay with -Djunction.crash.seed="
                + seed + ")");
        return new KillRounds(kills, new Random(seed));
    }

    int kills() {
        return kills;
    }

    /** The run's only source of random choices: draw from it in the same order and a seed replays the run. */
    Random random() {
        return random;
    }

    /** How long a round's load runs before the SIGKILL: 0.5 to 2.5 s, so kills land in every phase of the load. */
    long nextKillDelayMillis() {
        return 500 + random.nextInt(2001);
    }

    /** Runs rounds 1 to {@link #kills()} in order. */
    void run(final Round round) throws Exception {
        for (int r = 1; r <= kills; r++) {
            round.run(r);
        }
    }
}
