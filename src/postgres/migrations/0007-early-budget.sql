-- The bounds of early answers across instances (docs/payments.md#early-answers). An admission
-- takes the advisory lock of early answers, reads these tables and inserts its row in one
-- transaction (with the settlement's pending record), so instances sharing the database keep one
-- global exposure, one loss budget and one history per payer.
--
-- One row per early answer whose payment is neither confirmed nor failed yet: its payer, its price
-- and what its transaction would cost our fee payer if it failed (token units), and whether its
-- payer had confirmed history when admitted.
create table early_exposure (
  key text primary key,
  payer text not null,
  units bigint not null,
  fee_units bigint not null,
  trusted boolean not null,
  expires_at bigint not null
);
create index early_exposure_payer on early_exposure (payer);
create index early_exposure_expires_at on early_exposure (expires_at);

-- One row per payment that failed after its early answer: what was lost (its price, plus the fee
-- when its transaction failed on chain), kept a day for the rolling loss budget.
create table early_losses (
  key text primary key,
  units bigint not null,
  new_payer boolean not null,
  at_ms bigint not null,
  expires_at bigint not null
);
create index early_losses_at on early_losses (at_ms);
create index early_losses_expires_at on early_losses (expires_at);

-- A payer's confirmed value per UTC day, kept 30 days: the history its early answers' cap grows with.
create table early_trust (
  payer text not null,
  day bigint not null,
  units bigint not null,
  expires_at bigint not null,
  primary key (payer, day)
);
create index early_trust_expires_at on early_trust (expires_at);
