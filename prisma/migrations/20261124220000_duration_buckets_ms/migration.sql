-- Duration histograms move from 80 buckets starting at 1 s (everything under 1 s in
-- bucket 0) to 120 buckets starting at 1 ms (lib/metrics/duration-buckets.ts).
-- Each earlier bucket i >= 1 is counted where its midpoint falls now, bucket i + 40;
-- the earlier bucket 0 is counted at 500 ms, bucket 36.
UPDATE "TaskDailyRollup"
SET "durationHist" = (
  WITH RECURSIVE slot(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM slot WHERE j < 119)
  SELECT json_group_array(
    CASE
      WHEN j = 36 THEN COALESCE(json_extract("TaskDailyRollup"."durationHist", '$[0]'), 0)
      WHEN j >= 41 THEN COALESCE(json_extract("TaskDailyRollup"."durationHist", '$[' || (j - 40) || ']'), 0)
      ELSE 0
    END
  )
  FROM (SELECT j FROM slot ORDER BY j)
)
WHERE json_valid("durationHist") AND json_array_length("durationHist") = 80;
