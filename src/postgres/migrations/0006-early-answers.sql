-- Early answers (docs/payments.md#early-answers): the outcome of each early answer's payment
-- (key 'outcome:<payment key>', confirmed or failed with what failed) and the payers barred from
-- early answers after a failure (key 'bar:<payer>', expiring when the bar ends).
create table early_answers (
  key text primary key,
  record json not null,
  expires_at bigint not null
);
create index early_answers_expires_at on early_answers (expires_at);
