# Reference figures of analysis.WelchLog and the cells' log-scale intervals,
# from R's t.test (Welch's two-sample t test, the default var.equal = FALSE)
# on the logarithms of the rounds. Run: Rscript welch_log.R > welch_log.txt
cases <- list(
  list(name = "flush2 vs flush1, 3 rounds each, apart", a = c(568, 720, 899), b = c(183, 350, 521)),
  list(name = "4 rounds each, throughput-like", a = c(5259, 5270, 5262, 5281), b = c(5222, 5230, 5215, 5240)),
  list(name = "2 rounds each, overlapping", a = c(100, 130), b = c(110, 90)),
  list(name = "5 against 3, wide", a = c(1011, 1500, 600, 2200, 900), b = c(1000, 1100, 1050)),
  list(name = "latency, lower is better", a = c(2.1, 2.3, 2.2), b = c(3.0, 3.4, 3.1, 3.3))
)
for (k in cases) {
  t <- t.test(log(k$a), log(k$b), conf.level = 0.95)
  cat(sprintf("%s|%.10g|%.10g|%.10g|%.10g|%.10g|%.10g\n", k$name,
    exp(t$estimate[1] - t$estimate[2]), exp(t$conf.int[1]), exp(t$conf.int[2]),
    t$statistic, t$parameter, t$p.value))
}
# One system's interval: half the width of the t interval of the mean log.
for (x in list(c(568, 720, 899), c(12, 10), c(5259, 5270, 5262, 5281))) {
  t <- t.test(log(x), conf.level = 0.95)
  cat(sprintf("cell|%s|%.10g\n", paste(x, collapse = " "), (t$conf.int[2] - t$conf.int[1]) / 2))
}
