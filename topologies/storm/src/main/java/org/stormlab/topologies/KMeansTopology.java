package org.stormlab.topologies;

import java.util.Map;
import java.util.Random;
import org.apache.storm.Config;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseRichBolt;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;
import org.stormlab.instrument.Instrument;

/**
 * Streaming k-means, the deadline paper's "complex query" (002 sec. 4): points (spout) -shuffle-> assign
 * -fields(cluster)-> update -shuffle-> sink, plus update -all-> assign on stream "centroids".
 *
 * <ul>
 *   <li>points: seeded points around k true centres in [0,100)^d (Gaussian, sigma --sigma); --size-mb
 *       bounds the data, counting 8 bytes per coordinate (the paper's 1 GB / 2 GB of random numbers).</li>
 *   <li>assign: nearest current centroid (k*d distance work per point).</li>
 *   <li>update: sequential (MacQueen) k-means, c += (x - c) / n per cluster; every --broadcast-every points
 *       of a cluster it sends the new centroid to every assign task (unanchored: model updates are not
 *       part of any point's tuple tree).</li>
 *   <li>sink: acks; every tuple carries T_start, so the hook records processing time against each
 *       component's deadline (--deadline-ms, --deadlines) in every bolt.</li>
 * </ul>
 * Initial centroids are the same seeded random points in every assign and update task.
 */
public final class KMeansTopology {
    public static final String SPOUT = "points";
    public static final String ASSIGN = "assign";
    public static final String UPDATE = "update";
    public static final String SINK = "sink";
    public static final String CENTROIDS = "centroids";

    private KMeansTopology() {
    }

    public static Args flags() {
        return TopologySetup.commonFlags("KMeansTopology", "kmeans", 8, 4)
            .flag("k", 8, "number of clusters")
            .flag("dims", 16, "dimensions of a point")
            .flag("sigma", 5.0, "standard deviation of points around their true centre")
            .flag("broadcast-every", 100, "points of one cluster between centroid broadcasts")
            .flag("size-mb", 0.0, "total data over all spout tasks in MB (8 bytes a coordinate); 0 = endless")
            .flag("interval-ms", 0.0, "ms between points of one spout task; 0 = as fast as max spout pending allows");
    }

    public static StormTopology build(Args a, Config conf) {
        int k = a.integer("k");
        int d = a.integer("dims");
        double sigma = a.number("sigma");
        int every = a.integer("broadcast-every");
        double size = a.number("size-mb");
        double interval = a.number("interval-ms");
        long seed = a.longValue("seed");
        if (k < 1 || d < 1 || every < 1) {
            throw new IllegalArgumentException("--k, --dims and --broadcast-every must be >= 1");
        }
        if (sigma < 0 || size < 0 || interval < 0) {
            throw new IllegalArgumentException("--sigma, --size-mb and --interval-ms must be >= 0");
        }
        conf.registerSerialization(double[].class);
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout(SPOUT, new PointSpout(interval, (long) (size * 1e6), seed, k, d, sigma).openLoop(TopologySetup.openLoop(a)),
            TopologySetup.parallelism(a, SPOUT));
        b.setBolt(ASSIGN, new AssignBolt(seed, k, d), TopologySetup.parallelism(a, ASSIGN))
            .shuffleGrouping(SPOUT)
            .allGrouping(UPDATE, CENTROIDS);
        b.setBolt(UPDATE, new UpdateBolt(seed, k, d, every), TopologySetup.parallelism(a, UPDATE))
            .fieldsGrouping(ASSIGN, new Fields("cluster"));
        b.setBolt(SINK, new WordCountTopology.Sink(), TopologySetup.parallelism(a, SINK)).shuffleGrouping(UPDATE);
        return b.createTopology();
    }

    public static void main(String[] argv) {
        System.exit(TopologySetup.run("KMeansTopology", flags(), argv, KMeansTopology::build));
    }

    /** The k initial centroids, identical in every task: uniform in [0,100)^d from the seed. */
    static double[][] initialCentroids(long seed, int k, int d) {
        Random r = new Random(seed ^ 0x5DEECE66DL);
        double[][] c = new double[k][d];
        for (int i = 0; i < k; i++) {
            for (int j = 0; j < d; j++) {
                c[i][j] = 100 * r.nextDouble();
            }
        }
        return c;
    }

    /** Index of the centroid nearest to p (squared Euclidean distance; ties to the lower index). */
    static int nearest(double[][] centroids, double[] p) {
        int best = 0;
        double bestD = Double.MAX_VALUE;
        for (int i = 0; i < centroids.length; i++) {
            double s = 0;
            double[] c = centroids[i];
            for (int j = 0; j < p.length; j++) {
                double x = p[j] - c[j];
                s += x * x;
            }
            if (s < bestD) {
                bestD = s;
                best = i;
            }
        }
        return best;
    }

    static final class PointSpout extends PacedSpout {
        private final long seed;
        private final int k;
        private final int d;
        private final double sigma;
        private double[][] centres;
        private Random random;

        PointSpout(double intervalMs, long budgetBytes, long seed, int k, int d, double sigma) {
            super(intervalMs, budgetBytes);
            this.seed = seed;
            this.k = k;
            this.d = d;
            this.sigma = sigma;
        }

        @Override
        protected void prepare(Map<String, Object> conf, TopologyContext context) {
            Random r = new Random(seed); // true centres: the same in every spout task
            centres = new double[k][d];
            for (int i = 0; i < k; i++) {
                for (int j = 0; j < d; j++) {
                    centres[i][j] = 100 * r.nextDouble();
                }
            }
            random = new Random(seed * 1_000_003L + context.getThisTaskIndex() + 1);
        }

        @Override
        protected Values next(long seq) {
            double[] c = centres[random.nextInt(k)];
            double[] p = new double[d];
            for (int j = 0; j < d; j++) {
                p[j] = c[j] + sigma * random.nextGaussian();
            }
            return new Values(p);
        }

        @Override
        protected long bytes(Values v) {
            return 8L * d;
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer od) {
            od.declare(new Fields("point", Instrument.FIELD_T_START));
        }
    }

    static final class AssignBolt extends BaseRichBolt {
        private final long seed;
        private final int k;
        private final int d;
        private double[][] centroids;
        private OutputCollector collector;

        AssignBolt(long seed, int k, int d) {
            this.seed = seed;
            this.k = k;
            this.d = d;
        }

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
            this.centroids = initialCentroids(seed, k, d);
        }

        @Override
        public void execute(Tuple t) {
            if (CENTROIDS.equals(t.getSourceStreamId())) {
                int cluster = t.getInteger(0);
                if (cluster >= 0 && cluster < k) {
                    centroids[cluster] = (double[]) t.getValue(1);
                }
                collector.ack(t);
                return;
            }
            double[] p = (double[]) t.getValue(0);
            int c = nearest(centroids, p);
            collector.emit(t, new Values(c, p, t.getValue(1)));
            collector.ack(t);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer od) {
            od.declare(new Fields("cluster", "point", Instrument.FIELD_T_START));
        }
    }

    static final class UpdateBolt extends BaseRichBolt {
        private final long seed;
        private final int k;
        private final int d;
        private final int every;
        private double[][] centroids;
        private long[] n;
        private OutputCollector collector;

        UpdateBolt(long seed, int k, int d, int every) {
            this.seed = seed;
            this.k = k;
            this.d = d;
            this.every = every;
        }

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
            this.centroids = initialCentroids(seed, k, d);
            this.n = new long[k];
        }

        @Override
        public void execute(Tuple t) {
            int c = t.getInteger(0);
            double[] p = (double[]) t.getValue(1);
            double[] m = centroids[c];
            n[c]++;
            double dist = 0;
            for (int j = 0; j < d; j++) {
                double x = p[j] - m[j];
                dist += x * x;
                m[j] += x / n[c];
            }
            if (n[c] % every == 0) {
                collector.emit(CENTROIDS, new Values(c, m.clone()));
            }
            collector.emit(t, new Values(c, Math.sqrt(dist), t.getValue(2)));
            collector.ack(t);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer od) {
            od.declare(new Fields("cluster", "distance", Instrument.FIELD_T_START));
            od.declareStream(CENTROIDS, new Fields("cluster", "centroid"));
        }
    }
}
