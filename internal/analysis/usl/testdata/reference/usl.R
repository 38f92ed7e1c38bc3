# Reference fits of the Universal Scalability Law by R's nls (algorithm
# "port", bounded below at 0: the bounded nonlinear least squares smoeding/usl
# builds on), for usl's reference test. Regenerate with:
#   Rscript usl.R > usl.txt
# Data sets:
#   raytracer: Gunther, Guerrilla Capacity Planning (2007), as shipped in
#     smoeding/usl (data/raytracer.rda); one figure per processor count.
#   codahale: the 32 measurements of codahale/usl's model_test.go.
#   rounds: generated here from sigma = 0.05, kappa = 0.0005, lambda = 1000,
#     3 rounds per thread count with log-normal noise (sd 0.05), fitted on
#     the log scale as fairbench does.
fit <- function(name, scale, d) {
  f <- if (scale == "log") log(X) ~ log(l*N/(1+s*(N-1)+k*N*(N-1))) else X ~ l*N/(1+s*(N-1)+k*N*(N-1))
  m <- nls(f, data=d, start=list(s=0.1, k=0.0001, l=d$X[1]), algorithm="port", lower=c(0, 0, 0),
           control=list(eval.max=2000, iter.max=2000))
  cf <- summary(m)$coefficients
  df <- nrow(d) - 3
  cat(sprintf("dataset %s %s\n", name, scale))
  for (i in seq_len(nrow(d))) cat(sprintf("obs %.17g %.17g\n", d$N[i], d$X[i]))
  for (p in c("s", "k", "l")) {
    cat(sprintf("coef %s %.12g %.12g\n", p, cf[p, 1], cf[p, 2]))
  }
  cat(sprintf("rse %.12g %d\n", summary(m)$sigma, df))
  cat("end\n")
}
fit("raytracer", "linear", data.frame(N=c(1, 4, 8, 12, 16, 20, 24, 28, 32, 48, 64),
                                      X=c(20, 78, 130, 170, 190, 200, 210, 230, 260, 280, 310)))
fit("codahale", "linear", data.frame(N=1:32, X=c(955.16, 1878.91, 2688.01, 3548.68, 4315.54, 5130.43,
  5931.37, 6531.08, 7219.8, 7867.61, 8278.71, 8646.7, 9047.84, 9426.55, 9645.37, 9897.24, 10097.6,
  10240.5, 10532.39, 10798.52, 11151.43, 11518.63, 11806, 12089.37, 12075.41, 12177.29, 12211.41,
  12158.93, 12155.27, 12118.04, 12140.4, 12074.39)))
set.seed(32)
N <- rep(c(1, 2, 4, 8, 16, 32, 64), each=3)
X <- 1000*N/(1+0.05*(N-1)+0.0005*N*(N-1)) * exp(rnorm(length(N), 0, 0.05))
fit("rounds", "log", data.frame(N=N, X=X))
