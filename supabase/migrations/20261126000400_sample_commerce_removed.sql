-- The sample shop's customers and orders leave the migrations.
--
-- 20261122000800_sample_commerce (and 20261123000100_customer_identity) filled
-- customer_profiles and orders with the sample shop's made-up customers in
-- every database, production ones included, where the agent would look them
-- up. Migrations are forward-only, so this one removes exactly those rows; the
-- sample shop puts them back from its own seed (shops/sample/seed.sql) when the
-- service runs it, and no other shop ever has them. The tables stay: the
-- built-in lookup_order and get_user_profile read them.
--
-- Orders first (they reference the profiles). Rows a shop wrote itself are kept.
delete from orders where order_id in ('ZX-14440', 'ZX-17496', 'ZX-19608', 'ZX-20918', 'ZX-31586', 'ZX-34422', 'ZX-43466', 'ZX-45643', 'ZX-50802', 'ZX-53168', 'ZX-59197', 'ZX-95682');
delete from customer_profiles where user_id in ('amara.okafor@example.com', 'ingrid.holm@example.com', 'lukas@example.com', 'mateo.ruiz@example.com', 'priya.raman@example.com', 'tomasz.nowak@example.com');
