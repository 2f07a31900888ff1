# read-study.R — the study export in R: one row per option shown.
# Run: Rscript examples/study-analysis/read-study.R [study.csv]
args <- commandArgs(trailingOnly = TRUE)
path <- if (length(args) > 0) args[1] else "examples/study-analysis/study.csv"
rows <- read.csv(path, stringsAsFactors = FALSE)
rows$time <- as.POSIXct(rows$time, format = "%Y-%m-%dT%H:%M:%OSZ", tz = "UTC")
str(rows)
duels <- subset(rows, kind == "duel")
chosen <- subset(duels, answer == 1)
print(aggregate(cbind(gamma, brightness) ~ participant, data = chosen, FUN = mean))
first <- subset(duels, shown_position == 1)
cat("first shown preferred:", round(mean(first$answer), 3), "\n")
print(table(chosen$participant))
