--
-- PostgreSQL database dump
--

\restrict qGA0QTVD985LEBGUV8MVXsMUHUNg89N8ejNW2YJ7zEXGedRTayY2LTqI4pcH8EX

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: _fluent_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public._fluent_migrations (
    id uuid NOT NULL,
    name text NOT NULL,
    batch bigint NOT NULL,
    created_at timestamp with time zone,
    updated_at timestamp with time zone
);


--
-- Name: admin_events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.admin_events (
    id uuid NOT NULL,
    at timestamp with time zone NOT NULL,
    kind text NOT NULL,
    person_id uuid,
    who text NOT NULL,
    detail text NOT NULL
);


--
-- Name: admin_sign_in_attempts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.admin_sign_in_attempts (
    id uuid NOT NULL,
    state_hash text NOT NULL,
    nonce text NOT NULL,
    code_verifier text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL
);


--
-- Name: api_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.api_keys (
    id uuid NOT NULL,
    name text NOT NULL,
    scope text NOT NULL,
    key_hash text NOT NULL,
    key_prefix text NOT NULL,
    device_id uuid,
    created_at timestamp with time zone NOT NULL,
    revoked_at timestamp with time zone,
    expires_at timestamp with time zone,
    last_used_at timestamp with time zone
);


--
-- Name: apple_nonces; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.apple_nonces (
    id uuid NOT NULL,
    nonce_hash text NOT NULL,
    expires_at timestamp with time zone NOT NULL
);


--
-- Name: apple_notifications; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.apple_notifications (
    id uuid NOT NULL,
    jti text NOT NULL,
    type text NOT NULL,
    subject text NOT NULL,
    received_at timestamp with time zone NOT NULL
);


--
-- Name: apps; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.apps (
    id uuid NOT NULL,
    name text NOT NULL,
    role text NOT NULL,
    app_ids text[] NOT NULL,
    logout_action text,
    paths text[] NOT NULL,
    allowed_callback_hosts text[] NOT NULL,
    deadline_seconds bigint NOT NULL,
    max_reissues bigint NOT NULL,
    android_package text,
    android_fingerprints text[] NOT NULL,
    created_at timestamp with time zone NOT NULL,
    backchannel_logout_uri text,
    backchannel_logout_session_required boolean,
    logout_method text
);


--
-- Name: backchannel_logout_deliveries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.backchannel_logout_deliveries (
    id uuid NOT NULL,
    client_id text NOT NULL,
    session_id text NOT NULL,
    subject text,
    uri text NOT NULL,
    device_id uuid,
    run_id uuid,
    reason text NOT NULL,
    status text NOT NULL,
    attempts bigint NOT NULL,
    next_attempt_at timestamp with time zone NOT NULL,
    last_status_code bigint,
    last_error text,
    created_at timestamp with time zone NOT NULL,
    delivered_at timestamp with time zone,
    version bigint NOT NULL
);


--
-- Name: custodies; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.custodies (
    id uuid NOT NULL,
    device_id uuid NOT NULL,
    user_id uuid NOT NULL,
    person_name text,
    person_email text,
    site text,
    checked_out_by text NOT NULL,
    checked_out_at timestamp with time zone NOT NULL,
    checked_in_at timestamp with time zone,
    run_id uuid,
    ended_without_run text,
    badge_digest text
);


--
-- Name: dashboard_sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.dashboard_sessions (
    id uuid NOT NULL,
    token_hash text NOT NULL,
    csrf_token text NOT NULL,
    api_key_id uuid,
    person_id uuid,
    grants text NOT NULL,
    break_glass boolean NOT NULL,
    provider_sid text,
    id_token text,
    created_at timestamp with time zone NOT NULL,
    last_seen_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL
);


--
-- Name: device_history; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.device_history (
    id uuid NOT NULL,
    device_id uuid NOT NULL,
    event text NOT NULL,
    from_status text NOT NULL,
    to_status text NOT NULL,
    run_id uuid,
    reason text,
    note text,
    actor text NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: device_secrets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.device_secrets (
    id uuid NOT NULL,
    secret_hash text NOT NULL,
    user_id uuid NOT NULL,
    device_id uuid,
    client_id text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    revoked_at timestamp with time zone
);


--
-- Name: devices; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.devices (
    id uuid NOT NULL,
    name text NOT NULL,
    status text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    last_run_id uuid,
    status_reason text,
    status_changed_at timestamp with time zone,
    last_completed_at timestamp with time zone,
    serial_number text,
    mdm_device_id text,
    site text
);


--
-- Name: email_login_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.email_login_tokens (
    id uuid NOT NULL,
    token_hash text NOT NULL,
    email text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    used_at timestamp with time zone,
    device_id uuid
);


--
-- Name: enrolled_devices; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.enrolled_devices (
    id text NOT NULL,
    user_handle text NOT NULL,
    signing_key text NOT NULL,
    agreement_key text NOT NULL,
    push_token text,
    push_token_active boolean NOT NULL,
    enrolled_at timestamp with time zone NOT NULL,
    deregistered_at timestamp with time zone,
    fleet_device_id uuid
);


--
-- Name: logout_item_reissues; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.logout_item_reissues (
    id uuid NOT NULL,
    run_id uuid NOT NULL,
    item_id uuid NOT NULL,
    attempt bigint NOT NULL,
    missed_deadline_at timestamp with time zone NOT NULL,
    issued_at timestamp with time zone NOT NULL,
    deadline_at timestamp with time zone NOT NULL
);


--
-- Name: logout_items; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.logout_items (
    id uuid NOT NULL,
    run_id uuid NOT NULL,
    app_id uuid NOT NULL,
    app_name text NOT NULL,
    "position" bigint NOT NULL,
    status text NOT NULL,
    attempts bigint NOT NULL,
    deadline_at timestamp with time zone NOT NULL,
    issued_at timestamp with time zone NOT NULL,
    finished_at timestamp with time zone,
    reported_by text,
    version bigint NOT NULL,
    logout_method text
);


--
-- Name: logout_runs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.logout_runs (
    id uuid NOT NULL,
    device_id uuid NOT NULL,
    status text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    finished_at timestamp with time zone
);


--
-- Name: mdm_commands; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mdm_commands (
    id uuid NOT NULL,
    device_id uuid NOT NULL,
    connector text NOT NULL,
    action text NOT NULL,
    status text NOT NULL,
    trigger text NOT NULL,
    attempts bigint NOT NULL,
    next_attempt_at timestamp with time zone NOT NULL,
    last_status_code bigint,
    last_error text,
    answer text,
    confirmed_by text,
    in_flight_since timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    sent_at timestamp with time zone,
    version bigint NOT NULL
);


--
-- Name: oauth_clients; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oauth_clients (
    id uuid NOT NULL,
    client_id text NOT NULL,
    secret_hash text NOT NULL,
    client_name text,
    software_id text,
    backchannel_logout_uri text,
    backchannel_logout_session_required boolean NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: oob_callback_allowlists; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oob_callback_allowlists (
    id text NOT NULL,
    hosts text NOT NULL,
    schemes text NOT NULL,
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: oob_locks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oob_locks (
    user_handle text NOT NULL,
    operation_id uuid NOT NULL,
    locked_at timestamp with time zone NOT NULL
);


--
-- Name: oob_operations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oob_operations (
    id uuid NOT NULL,
    type text NOT NULL,
    user_handle text NOT NULL,
    message text,
    dispatcher text NOT NULL,
    status text NOT NULL,
    challenge text NOT NULL,
    number_choices text,
    correct_number bigint,
    device_id text,
    callbacks text,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    answered_by text,
    failure_code text,
    failure_reason text,
    push_outcome text,
    browser_secret_hash text,
    session_claimed_at timestamp with time zone,
    code_attempts bigint,
    reported_at timestamp with time zone,
    fleet_device_id uuid
);


--
-- Name: people; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.people (
    id uuid NOT NULL,
    issuer text NOT NULL,
    subject text NOT NULL,
    name text,
    email text,
    grants text NOT NULL,
    first_seen_at timestamp with time zone NOT NULL,
    last_sign_in_at timestamp with time zone NOT NULL
);


--
-- Name: refresh_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.refresh_tokens (
    id uuid NOT NULL,
    session_id uuid NOT NULL,
    token_hash text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    used_at timestamp with time zone
);


--
-- Name: server_settings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.server_settings (
    key text NOT NULL,
    value text NOT NULL
);


--
-- Name: session_signing_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.session_signing_keys (
    id uuid NOT NULL,
    kid text NOT NULL,
    sealed_private_key text NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: tester_runs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.tester_runs (
    id uuid NOT NULL,
    action_url text NOT NULL,
    claiming_app_id text,
    association_report text NOT NULL,
    declares_allowlist boolean NOT NULL,
    simulated_behaviour text,
    budget_seconds bigint NOT NULL,
    rounds text NOT NULL,
    status text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    version bigint NOT NULL
);


--
-- Name: user_sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.user_sessions (
    id uuid NOT NULL,
    user_id uuid NOT NULL,
    created_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    revoked_at timestamp with time zone,
    revoke_reason text,
    client_id text,
    device_secret_id uuid,
    device_id uuid
);


--
-- Name: users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.users (
    id uuid NOT NULL,
    apple_subject text,
    apple_client_id text,
    email text,
    email_verified boolean,
    is_private_email boolean,
    email_forwarding_disabled boolean NOT NULL,
    full_name text,
    apple_refresh_token text,
    apple_validated_at timestamp with time zone,
    apple_check_claimed_until timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    oob_user_handle text
);


--
-- Name: webhook_deliveries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_deliveries (
    id uuid NOT NULL,
    webhook_id uuid NOT NULL,
    event text NOT NULL,
    payload text NOT NULL,
    status text NOT NULL,
    attempts bigint NOT NULL,
    next_attempt_at timestamp with time zone NOT NULL,
    last_status_code bigint,
    last_error text,
    created_at timestamp with time zone NOT NULL,
    delivered_at timestamp with time zone,
    version bigint NOT NULL,
    run_id uuid
);


--
-- Name: webhooks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhooks (
    id uuid NOT NULL,
    url text NOT NULL,
    secret text NOT NULL,
    events text[] NOT NULL,
    created_at timestamp with time zone NOT NULL,
    previous_secret text,
    previous_secret_expires_at timestamp with time zone
);


--
-- Data for Name: _fluent_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public._fluent_migrations (id, name, batch, created_at, updated_at) FROM stdin;
b0bdad42-230e-47db-85d1-9fac750fdcd7	HandoverCore.CreateSchema	1	2026-11-27 01:50:43.094845+00	2026-11-27 01:50:43.094845+00
63a62680-50f2-4606-9e4c-5d1a2d2d43b8	HandoverCore.CreateIndexes	1	2026-11-27 01:50:43.105363+00	2026-11-27 01:50:43.105363+00
24d61426-295c-4adc-bc08-e8745291fa15	HandoverCore.CreateDashboardAndTester	1	2026-11-27 01:50:43.113048+00	2026-11-27 01:50:43.113048+00
1e7f120a-9386-40cf-82f4-00c358e73e9a	HandoverCore.CreateUserSessions	1	2026-11-27 01:50:43.141041+00	2026-11-27 01:50:43.141041+00
e6505648-9c22-442a-99dd-fd3bc277c1ea	HandoverCore.CreateEmailSignInAndDeviceSSO	1	2026-11-27 01:50:43.151329+00	2026-11-27 01:50:43.151329+00
c2fa1147-62e7-4d36-9939-a286844844e9	HandoverCore.CreateOutOfBand	1	2026-11-27 01:50:43.164227+00	2026-11-27 01:50:43.164227+00
5426b4eb-8405-4b7c-81e7-a59853f8a891	HandoverCore.AddWebhookSecretRotation	1	2026-11-27 01:50:43.167547+00	2026-11-27 01:50:43.167547+00
90856012-ff9e-4eaf-a57e-f0a652543e7c	HandoverCore.AddPushFatigueDefenses	1	2026-11-27 01:50:43.173818+00	2026-11-27 01:50:43.173818+00
fbda3484-ea5d-44eb-82eb-7b5fe2e10b21	HandoverCore.AddOpenIDConnect	1	2026-11-27 01:50:43.187889+00	2026-11-27 01:50:43.187889+00
84ebd638-d4af-4f4c-a2c8-78830ff298a3	HandoverCore.AddFleetDeviceBindings	1	2026-11-27 01:50:43.192625+00	2026-11-27 01:50:43.192625+00
69d04dc6-5186-40e7-a90a-226ea22db2a2	HandoverCore.AddEmailLinkDevice	1	2026-11-27 01:50:43.195861+00	2026-11-27 01:50:43.195861+00
1f7c4eb2-754a-45f4-93fd-5f23302eb1c3	HandoverCore.AddDeviceLifeCycle	1	2026-11-27 01:50:43.204792+00	2026-11-27 01:50:43.204792+00
44a202b9-f76b-4276-b31c-20d115b77a77	HandoverCore.AddDeviceIdentifiers	1	2026-11-27 01:50:43.209224+00	2026-11-27 01:50:43.209224+00
8b9b392c-0d96-47e3-8462-e7996e7895c8	HandoverCore.AddMDMCommands	1	2026-11-27 01:50:43.216773+00	2026-11-27 01:50:43.216773+00
c0a424e4-2d79-4cf7-b0c7-cdfe9d76f12e	HandoverCore.AddLogoutMethods	1	2026-11-27 01:50:43.219647+00	2026-11-27 01:50:43.219647+00
e7ccdd25-df2c-4766-a77d-542612033630	HandoverCore.AddFleetScaleIndexes	1	2026-11-27 01:50:43.229145+00	2026-11-27 01:50:43.229145+00
4d5d115b-3f8d-4fda-aec8-7c4682136553	HandoverCore.AddRunTimeline	1	2026-11-27 01:50:43.236136+00	2026-11-27 01:50:43.236136+00
77e1c6a5-1b3a-4427-86eb-7e8f4eb99808	HandoverCore.AddDeviceSignOutIndexes	1	2026-11-27 01:50:43.240027+00	2026-11-27 01:50:43.240027+00
a5500d58-41fd-4b72-a40a-9c1e4b6f9d46	HandoverCore.AddItemLogoutMethods	1	2026-11-27 01:50:43.242115+00	2026-11-27 01:50:43.242115+00
7b8c1a48-7bbf-42b0-a54f-48b439a75fd7	HandoverCore.AddPendingItemIndexes	1	2026-11-27 01:50:43.249077+00	2026-11-27 01:50:43.249077+00
92e2fd50-4e20-43af-bfbc-bb1ca3753148	HandoverCore.AddPeople	1	2026-11-27 01:50:43.262374+00	2026-11-27 01:50:43.262374+00
54104c62-88ea-4734-ad12-5948f92bd98d	HandoverCore.AddDeviceSites	1	2026-11-27 01:50:43.265793+00	2026-11-27 01:50:43.265793+00
85ceac8e-fbf7-4673-b9a3-531420286b1d	HandoverCore.AddKeyExpiry	1	2026-11-27 01:50:43.26878+00	2026-11-27 01:50:43.26878+00
a5e8a766-8c9b-4bbc-b075-851cf1f5c3e2	HandoverCore.AddCustody	1	2026-11-27 01:50:43.277827+00	2026-11-27 01:50:43.277827+00
\.


--
-- Data for Name: admin_events; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.admin_events (id, at, kind, person_id, who, detail) FROM stdin;
818db4bc-d442-4fba-a15b-e79b84e34a16	2026-11-27 01:50:43.40513+00	app_changed	\N	"first admin key" (admin key hov_FGQhqEJY…)	registered Chart
0ab53c66-8f7c-4f5b-9da5-75bac4c3a871	2026-11-27 01:50:43.422908+00	app_changed	\N	"first admin key" (admin key hov_FGQhqEJY…)	registered Notes
ceaa39a8-9ed8-4ac9-944c-aa2e6fd0ccd2	2026-11-27 01:50:43.435422+00	app_changed	\N	"first admin key" (admin key hov_FGQhqEJY…)	registered Launcher
7170d5ef-4ad0-4c26-a697-ba565aed7ec3	2026-11-27 01:50:43.444647+00	webhook_changed	\N	"first admin key" (admin key hov_FGQhqEJY…)	added https://mdm.example.com/hooks/handover
e8abe3ef-bb79-4c30-a8ce-fdb7dbdffc51	2026-11-27 01:50:43.473471+00	device_changed	\N	"first admin key" (admin key hov_FGQhqEJY…)	added ward-phone-0 at ICU
2e40f29f-541a-41c4-a662-67fe12066f0a	2026-11-27 01:50:43.523064+00	device_changed	\N	"first admin key" (admin key hov_FGQhqEJY…)	added ward-phone-1 at ICU
17c61348-b81a-4751-b9ab-b6db5ff92d69	2026-11-27 01:50:43.555185+00	device_changed	\N	"first admin key" (admin key hov_FGQhqEJY…)	added ward-phone-2 at ward-7
c0d62834-7139-4d23-893b-853ac0943593	2026-11-27 01:50:43.5889+00	device_changed	\N	"first admin key" (admin key hov_FGQhqEJY…)	added ward-phone-3 at ward-7
\.


--
-- Data for Name: admin_sign_in_attempts; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.admin_sign_in_attempts (id, state_hash, nonce, code_verifier, created_at, expires_at) FROM stdin;
\.


--
-- Data for Name: api_keys; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.api_keys (id, name, scope, key_hash, key_prefix, device_id, created_at, revoked_at, expires_at, last_used_at) FROM stdin;
91486b18-ab62-4447-87cc-b38a40e4ef63	first admin key	admin	d70e37d4a55fbbc28ce2a67fb18fd72570d6f3e38be90058f163a4f7e70d4d0d	hov_FGQhqEJY	\N	2026-11-27 01:50:43.354361+00	\N	\N	2026-11-27 01:50:43.386406+00
c604fb94-8099-484e-bd19-3cbdc1078b91	device ward-phone-0	device	b041bc196202a313a2fbd37f84396ba8e66b5650c70bb63c041766bdbd304af2	hov_Gje76May	a138e63f-6ddd-40fb-8dfd-351e696971eb	2026-11-27 01:50:43.466432+00	\N	\N	\N
904ee90a-795c-4d7f-96bb-c7767fbd5f49	device ward-phone-1	device	d536cd94643a27b8b62983ce47ab33984f793f6cd6ce40a05277f0aefd781b99	hov_0E7O-M8i	173e957c-9648-4212-946a-972a2c34910b	2026-11-27 01:50:43.518157+00	\N	\N	\N
74121f71-07f8-4a97-8e6d-b8a12911230f	device ward-phone-2	device	7553052b266ede866dbc2c6055ccd12faf397adf89865aec1176b8df8eec7eb9	hov_KvH1MILp	479a09f2-aad3-403a-9c3e-4c5fd5e2f5dd	2026-11-27 01:50:43.551539+00	\N	\N	\N
41c31c08-7ea0-4919-a8e4-8a02b2a428a4	device ward-phone-3	device	afb28b9e1b57cac64737148132407707957d66f6a98d9fc429acf6972664456d	hov_L0j3bHy-	4ae21f76-2334-4b03-b707-6f3a136c7657	2026-11-27 01:50:43.585034+00	\N	\N	\N
\.


--
-- Data for Name: apple_nonces; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.apple_nonces (id, nonce_hash, expires_at) FROM stdin;
\.


--
-- Data for Name: apple_notifications; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.apple_notifications (id, jti, type, subject, received_at) FROM stdin;
\.


--
-- Data for Name: apps; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.apps (id, name, role, app_ids, logout_action, paths, allowed_callback_hosts, deadline_seconds, max_reissues, android_package, android_fingerprints, created_at, backchannel_logout_uri, backchannel_logout_session_required, logout_method) FROM stdin;
4f57392f-19ef-478a-a1bc-991f366fb8e0	Chart	target	{A1B2C3D4E5.org.example.chart}	https://chart.example.org/logout	{}	{}	20	2	\N	{}	2026-11-27 01:50:43.39897+00	\N	\N	ulc
fec30a9e-0a85-46d7-b417-ca1dbbb7be39	Notes	target	{A1B2C3D4E5.org.example.notes}	notes://x-callback-url/logout	{}	{}	20	2	\N	{}	2026-11-27 01:50:43.418415+00	\N	\N	x-callback
5092bc2e-20de-459c-98db-f4aa4d67f291	Launcher	launcher	{A1B2C3D4E5.org.example.launcher}	\N	{}	{}	20	2	\N	{}	2026-11-27 01:50:43.430929+00	\N	\N	\N
\.


--
-- Data for Name: backchannel_logout_deliveries; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.backchannel_logout_deliveries (id, client_id, session_id, subject, uri, device_id, run_id, reason, status, attempts, next_attempt_at, last_status_code, last_error, created_at, delivered_at, version) FROM stdin;
\.


--
-- Data for Name: custodies; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.custodies (id, device_id, user_id, person_name, person_email, site, checked_out_by, checked_out_at, checked_in_at, run_id, ended_without_run, badge_digest) FROM stdin;
64f452c5-3f96-40c2-9849-d3444ab656ea	479a09f2-aad3-403a-9c3e-4c5fd5e2f5dd	516303fe-6e7f-49cc-a53e-98fa03e3178f	\N	casey	ward-7	badge	2026-11-27 01:50:43.565181+00	\N	\N	\N	2171c3bb78a1decbe1fc255dd9b106fadbb7a0edba55f023d525d9b9a694f99d
d7afccff-6695-4f6d-8d06-37d590f68dc1	4ae21f76-2334-4b03-b707-6f3a136c7657	f21d8d5e-20c1-4b3c-9aaf-c057c7008ff9	\N	devon	ward-7	badge	2026-11-27 01:50:43.597424+00	\N	\N	\N	ee612f8d7ff0735d5f5976fd4afd71da16ea9962017482a0c3479b1c76f2b145
5529b486-3955-49b1-98fb-a0679353d19a	a138e63f-6ddd-40fb-8dfd-351e696971eb	fcc3d5e2-a081-41f4-9eff-f9c6608ac3b9	\N	avery	ICU	badge	2026-11-27 01:50:43.49138+00	2026-11-27 01:50:43.620864+00	1b9e463a-911b-4e3d-9ecc-d07cb78543f4	\N	d897df22c8593e06e9b95270392dc912470ef60a799cfa73f67b729debbf8401
42b8cd66-c0a1-466f-abe7-172f2acfd6c1	173e957c-9648-4212-946a-972a2c34910b	12297555-efb7-430d-b052-3765480c6fb4	\N	blake	ICU	badge	2026-11-27 01:50:43.534482+00	2026-11-27 01:50:43.686057+00	4847c290-0435-4e2d-9183-6e6cba76b7e2	\N	6f44c284e2c655c052dd366899562c8dc3c7849bd0c7d803e03128432e061381
\.


--
-- Data for Name: dashboard_sessions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.dashboard_sessions (id, token_hash, csrf_token, api_key_id, person_id, grants, break_glass, provider_sid, id_token, created_at, last_seen_at, expires_at) FROM stdin;
\.


--
-- Data for Name: device_history; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.device_history (id, device_id, event, from_status, to_status, run_id, reason, note, actor, created_at) FROM stdin;
f44f8823-c555-4a89-a9ea-6a6e3736313e	a138e63f-6ddd-40fb-8dfd-351e696971eb	run_started	in_service	handing_over	1b9e463a-911b-4e3d-9ecc-d07cb78543f4	\N	\N	"device ward-phone-0" (device key hov_Gje76May…)	2026-11-27 01:50:43.611895+00
7202f2bd-b9f3-4370-8e7e-c8aa7b769760	a138e63f-6ddd-40fb-8dfd-351e696971eb	run_completed	handing_over	in_service	1b9e463a-911b-4e3d-9ecc-d07cb78543f4	\N	\N	server	2026-11-27 01:50:43.645265+00
2c11d15f-05ca-43ef-b8cd-57618a866692	173e957c-9648-4212-946a-972a2c34910b	run_started	in_service	handing_over	4847c290-0435-4e2d-9183-6e6cba76b7e2	\N	\N	"device ward-phone-1" (device key hov_0E7O-M8i…)	2026-11-27 01:50:43.677669+00
344244b1-b4e0-422f-95f5-07f91be24d15	173e957c-9648-4212-946a-972a2c34910b	run_failed	handing_over	out_of_service	4847c290-0435-4e2d-9183-6e6cba76b7e2	Notes failed	\N	server	2026-11-27 01:50:43.706558+00
8387e828-f324-40e0-b4ca-818f934498a1	173e957c-9648-4212-946a-972a2c34910b	back_in_service	out_of_service	in_service	\N	\N	Notes signed out by hand at the IT desk; ticket 4711.	"first admin key" (admin key hov_FGQhqEJY…)	2026-11-27 01:50:43.728997+00
\.


--
-- Data for Name: device_secrets; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.device_secrets (id, secret_hash, user_id, device_id, client_id, created_at, revoked_at) FROM stdin;
\.


--
-- Data for Name: devices; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.devices (id, name, status, created_at, last_run_id, status_reason, status_changed_at, last_completed_at, serial_number, mdm_device_id, site) FROM stdin;
479a09f2-aad3-403a-9c3e-4c5fd5e2f5dd	ward-phone-2	in_service	2026-11-27 01:50:43.550455+00	\N	\N	\N	\N	F2LXK3Q1N72M	\N	ward-7
4ae21f76-2334-4b03-b707-6f3a136c7657	ward-phone-3	in_service	2026-11-27 01:50:43.583644+00	\N	\N	\N	\N	F2LXK3Q1N73M	\N	ward-7
a138e63f-6ddd-40fb-8dfd-351e696971eb	ward-phone-0	in_service	2026-11-27 01:50:43.463104+00	1b9e463a-911b-4e3d-9ecc-d07cb78543f4	\N	2026-11-27 01:50:43.645265+00	2026-11-27 01:50:43.645265+00	F2LXK3Q1N70M	\N	ICU
173e957c-9648-4212-946a-972a2c34910b	ward-phone-1	in_service	2026-11-27 01:50:43.516514+00	4847c290-0435-4e2d-9183-6e6cba76b7e2	Notes signed out by hand at the IT desk; ticket 4711.	2026-11-27 01:50:43.728997+00	2026-11-27 01:50:43.728997+00	F2LXK3Q1N71M	\N	ICU
\.


--
-- Data for Name: email_login_tokens; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.email_login_tokens (id, token_hash, email, created_at, expires_at, used_at, device_id) FROM stdin;
\.


--
-- Data for Name: enrolled_devices; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.enrolled_devices (id, user_handle, signing_key, agreement_key, push_token, push_token_active, enrolled_at, deregistered_at, fleet_device_id) FROM stdin;
\.


--
-- Data for Name: logout_item_reissues; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.logout_item_reissues (id, run_id, item_id, attempt, missed_deadline_at, issued_at, deadline_at) FROM stdin;
\.


--
-- Data for Name: logout_items; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.logout_items (id, run_id, app_id, app_name, "position", status, attempts, deadline_at, issued_at, finished_at, reported_by, version, logout_method) FROM stdin;
0ce52999-5316-44f3-a582-53d71f6170b8	1b9e463a-911b-4e3d-9ecc-d07cb78543f4	4f57392f-19ef-478a-a1bc-991f366fb8e0	Chart	0	succeeded	1	2026-11-27 01:51:03.611895+00	2026-11-27 01:50:43.611895+00	2026-11-27 01:50:43.633556+00	launcher	1	ulc
8153ca04-cdbb-4c06-836b-3231bb7a1e2d	1b9e463a-911b-4e3d-9ecc-d07cb78543f4	fec30a9e-0a85-46d7-b417-ca1dbbb7be39	Notes	1	succeeded	1	2026-11-27 01:51:03.611895+00	2026-11-27 01:50:43.611895+00	2026-11-27 01:50:43.645265+00	launcher	1	x-callback
fe7aeadc-c16f-4ae2-a79b-7e15d3b37265	4847c290-0435-4e2d-9183-6e6cba76b7e2	4f57392f-19ef-478a-a1bc-991f366fb8e0	Chart	0	succeeded	1	2026-11-27 01:51:03.677669+00	2026-11-27 01:50:43.677669+00	2026-11-27 01:50:43.697126+00	launcher	1	ulc
468de75f-9a95-4721-ab1a-db2fcdf4fd8a	4847c290-0435-4e2d-9183-6e6cba76b7e2	fec30a9e-0a85-46d7-b417-ca1dbbb7be39	Notes	1	failed	1	2026-11-27 01:51:03.677669+00	2026-11-27 01:50:43.677669+00	2026-11-27 01:50:43.706558+00	launcher	1	x-callback
\.


--
-- Data for Name: logout_runs; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.logout_runs (id, device_id, status, created_at, finished_at) FROM stdin;
1b9e463a-911b-4e3d-9ecc-d07cb78543f4	a138e63f-6ddd-40fb-8dfd-351e696971eb	completed	2026-11-27 01:50:43.611895+00	2026-11-27 01:50:43.645265+00
4847c290-0435-4e2d-9183-6e6cba76b7e2	173e957c-9648-4212-946a-972a2c34910b	failed	2026-11-27 01:50:43.677669+00	2026-11-27 01:50:43.706558+00
\.


--
-- Data for Name: mdm_commands; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.mdm_commands (id, device_id, connector, action, status, trigger, attempts, next_attempt_at, last_status_code, last_error, answer, confirmed_by, in_flight_since, created_at, sent_at, version) FROM stdin;
\.


--
-- Data for Name: oauth_clients; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.oauth_clients (id, client_id, secret_hash, client_name, software_id, backchannel_logout_uri, backchannel_logout_session_required, created_at) FROM stdin;
eec21e1d-a6ad-4b90-9472-af24c2a6ab2b	hoc_e1BbwQ9-LLbw8LNrsm0-JVN_	e10d5097e5b4ad94a173588b55bb99698c2515d9b3b5f16511f5b964febd1cca	Chart backend	\N	https://chart-api.example.org/oidc/backchannel-logout	f	2026-11-27 01:50:43.450678+00
\.


--
-- Data for Name: oob_callback_allowlists; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.oob_callback_allowlists (id, hosts, schemes, updated_at) FROM stdin;
\.


--
-- Data for Name: oob_locks; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.oob_locks (user_handle, operation_id, locked_at) FROM stdin;
\.


--
-- Data for Name: oob_operations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.oob_operations (id, type, user_handle, message, dispatcher, status, challenge, number_choices, correct_number, device_id, callbacks, created_at, updated_at, expires_at, answered_by, failure_code, failure_reason, push_outcome, browser_secret_hash, session_claimed_at, code_attempts, reported_at, fleet_device_id) FROM stdin;
\.


--
-- Data for Name: people; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.people (id, issuer, subject, name, email, grants, first_seen_at, last_sign_in_at) FROM stdin;
\.


--
-- Data for Name: refresh_tokens; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.refresh_tokens (id, session_id, token_hash, created_at, used_at) FROM stdin;
\.


--
-- Data for Name: server_settings; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.server_settings (key, value) FROM stdin;
callback_nonce_key	sealed:v1:RBrCQYZQuKkP7lmTEtFZf3hKsReJr1g1s/UIBNElHMYRNnNwbxsl/6Kr8ZnZCEjoYKJp3z38Z0s+BMN9+mRf4MBJkvKpQKg=
\.


--
-- Data for Name: session_signing_keys; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.session_signing_keys (id, kid, sealed_private_key, created_at) FROM stdin;
5e655a75-5cd4-4350-91c0-388449e719db	b1d034b6015d2da5	bm6dk77M77V+FD5wD2as0E4Hb4H/LL7Qv3AiTaARxcliJ9TdEZZJptzTVySx7fNl4LgLIswLK8BsllME	2026-11-27 01:50:43.295542+00
\.


--
-- Data for Name: tester_runs; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.tester_runs (id, action_url, claiming_app_id, association_report, declares_allowlist, simulated_behaviour, budget_seconds, rounds, status, created_at, version) FROM stdin;
\.


--
-- Data for Name: user_sessions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.user_sessions (id, user_id, created_at, expires_at, revoked_at, revoke_reason, client_id, device_secret_id, device_id) FROM stdin;
\.


--
-- Data for Name: users; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.users (id, apple_subject, apple_client_id, email, email_verified, is_private_email, email_forwarding_disabled, full_name, apple_refresh_token, apple_validated_at, apple_check_claimed_until, created_at, oob_user_handle) FROM stdin;
fcc3d5e2-a081-41f4-9eff-f9c6608ac3b9	\N	\N	avery	\N	\N	f	\N	\N	\N	\N	2026-11-27 01:50:43.49138+00	\N
12297555-efb7-430d-b052-3765480c6fb4	\N	\N	blake	\N	\N	f	\N	\N	\N	\N	2026-11-27 01:50:43.534482+00	\N
516303fe-6e7f-49cc-a53e-98fa03e3178f	\N	\N	casey	\N	\N	f	\N	\N	\N	\N	2026-11-27 01:50:43.565181+00	\N
f21d8d5e-20c1-4b3c-9aaf-c057c7008ff9	\N	\N	devon	\N	\N	f	\N	\N	\N	\N	2026-11-27 01:50:43.597424+00	\N
\.


--
-- Data for Name: webhook_deliveries; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.webhook_deliveries (id, webhook_id, event, payload, status, attempts, next_attempt_at, last_status_code, last_error, created_at, delivered_at, version, run_id) FROM stdin;
10b5dd5e-cf6f-4b1a-a6f1-a102a3a11177	e0bae45e-461a-4aeb-96fd-760e9dfd33a6	run.completed	{"createdAt":"2026-11-27T01:50:43Z","deviceID":"A138E63F-6DDD-40FB-8DFD-351E696971EB","id":"B3296C1F-B39B-421B-95E1-CB536E133B0B","run":{"createdAt":"2026-11-27T01:50:43Z","deviceID":"A138E63F-6DDD-40FB-8DFD-351E696971EB","finishedAt":"2026-11-27T01:50:43Z","id":"1B9E463A-911B-4E3D-9ECC-D07CB78543F4","items":[{"app":"Chart","appID":"4F57392F-19EF-478A-A1BC-991F366FB8E0","attempts":1,"deadlineAt":"2026-11-27T01:51:03Z","finishedAt":"2026-11-27T01:50:43Z","id":"0CE52999-5316-44F3-A582-53D71F6170B8","issuedAt":"2026-11-27T01:50:43Z","position":0,"reportedBy":"launcher","status":"succeeded"},{"app":"Notes","appID":"FEC30A9E-0A85-46D7-B417-CA1DBBB7BE39","attempts":1,"deadlineAt":"2026-11-27T01:51:03Z","finishedAt":"2026-11-27T01:50:43Z","id":"8153CA04-CDBB-4C06-836B-3231BB7A1E2D","issuedAt":"2026-11-27T01:50:43Z","position":1,"reportedBy":"launcher","status":"succeeded"}],"status":"completed"},"type":"run.completed"}	pending	0	2026-11-27 01:50:43.645265+00	\N	\N	2026-11-27 01:50:43.645265+00	\N	0	1b9e463a-911b-4e3d-9ecc-d07cb78543f4
6e54a9d9-fc43-4bb5-90fa-df423ae0a659	e0bae45e-461a-4aeb-96fd-760e9dfd33a6	run.failed	{"createdAt":"2026-11-27T01:50:43Z","deviceID":"173E957C-9648-4212-946A-972A2C34910B","id":"0FD587FB-89F2-4F1A-81B9-A5E20EE97DFE","run":{"createdAt":"2026-11-27T01:50:43Z","deviceID":"173E957C-9648-4212-946A-972A2C34910B","finishedAt":"2026-11-27T01:50:43Z","id":"4847C290-0435-4E2D-9183-6E6CBA76B7E2","items":[{"app":"Chart","appID":"4F57392F-19EF-478A-A1BC-991F366FB8E0","attempts":1,"deadlineAt":"2026-11-27T01:51:03Z","finishedAt":"2026-11-27T01:50:43Z","id":"FE7AEADC-C16F-4AE2-A79B-7E15D3B37265","issuedAt":"2026-11-27T01:50:43Z","position":0,"reportedBy":"launcher","status":"succeeded"},{"app":"Notes","appID":"FEC30A9E-0A85-46D7-B417-CA1DBBB7BE39","attempts":1,"deadlineAt":"2026-11-27T01:51:03Z","finishedAt":"2026-11-27T01:50:43Z","id":"468DE75F-9A95-4721-AB1A-DB2FCDF4FD8A","issuedAt":"2026-11-27T01:50:43Z","position":1,"reportedBy":"launcher","status":"failed"}],"status":"failed"},"type":"run.failed"}	pending	0	2026-11-27 01:50:43.706558+00	\N	\N	2026-11-27 01:50:43.706558+00	\N	0	4847c290-0435-4e2d-9183-6e6cba76b7e2
\.


--
-- Data for Name: webhooks; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.webhooks (id, url, secret, events, created_at, previous_secret, previous_secret_expires_at) FROM stdin;
e0bae45e-461a-4aeb-96fd-760e9dfd33a6	https://mdm.example.com/hooks/handover	sealed:v1:Mmjta6tFTvP2w7MxH9K9kn0we8IKJvYZGVRyZmX+5JVv7BPdriPIw/fncmTTSQp5u1drS0+inE5a/PSv4i04Cryt9Ra43b1rnzSqEAiQ	{run.completed,run.failed}	2026-11-27 01:50:43.442675+00	\N	\N
\.


--
-- Name: _fluent_migrations _fluent_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public._fluent_migrations
    ADD CONSTRAINT _fluent_migrations_pkey PRIMARY KEY (id);


--
-- Name: admin_events admin_events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_events
    ADD CONSTRAINT admin_events_pkey PRIMARY KEY (id);


--
-- Name: admin_sign_in_attempts admin_sign_in_attempts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_sign_in_attempts
    ADD CONSTRAINT admin_sign_in_attempts_pkey PRIMARY KEY (id);


--
-- Name: api_keys api_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);


--
-- Name: apple_nonces apple_nonces_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apple_nonces
    ADD CONSTRAINT apple_nonces_pkey PRIMARY KEY (id);


--
-- Name: apple_notifications apple_notifications_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apple_notifications
    ADD CONSTRAINT apple_notifications_pkey PRIMARY KEY (id);


--
-- Name: apps apps_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apps
    ADD CONSTRAINT apps_pkey PRIMARY KEY (id);


--
-- Name: backchannel_logout_deliveries backchannel_logout_deliveries_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.backchannel_logout_deliveries
    ADD CONSTRAINT backchannel_logout_deliveries_pkey PRIMARY KEY (id);


--
-- Name: custodies custodies_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.custodies
    ADD CONSTRAINT custodies_pkey PRIMARY KEY (id);


--
-- Name: dashboard_sessions dashboard_sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.dashboard_sessions
    ADD CONSTRAINT dashboard_sessions_pkey PRIMARY KEY (id);


--
-- Name: device_history device_history_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.device_history
    ADD CONSTRAINT device_history_pkey PRIMARY KEY (id);


--
-- Name: device_secrets device_secrets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.device_secrets
    ADD CONSTRAINT device_secrets_pkey PRIMARY KEY (id);


--
-- Name: devices devices_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.devices
    ADD CONSTRAINT devices_pkey PRIMARY KEY (id);


--
-- Name: email_login_tokens email_login_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.email_login_tokens
    ADD CONSTRAINT email_login_tokens_pkey PRIMARY KEY (id);


--
-- Name: enrolled_devices enrolled_devices_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.enrolled_devices
    ADD CONSTRAINT enrolled_devices_pkey PRIMARY KEY (id);


--
-- Name: logout_item_reissues logout_item_reissues_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.logout_item_reissues
    ADD CONSTRAINT logout_item_reissues_pkey PRIMARY KEY (id);


--
-- Name: logout_items logout_items_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.logout_items
    ADD CONSTRAINT logout_items_pkey PRIMARY KEY (id);


--
-- Name: logout_runs logout_runs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.logout_runs
    ADD CONSTRAINT logout_runs_pkey PRIMARY KEY (id);


--
-- Name: mdm_commands mdm_commands_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mdm_commands
    ADD CONSTRAINT mdm_commands_pkey PRIMARY KEY (id);


--
-- Name: oauth_clients oauth_clients_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_clients
    ADD CONSTRAINT oauth_clients_pkey PRIMARY KEY (id);


--
-- Name: oob_callback_allowlists oob_callback_allowlists_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oob_callback_allowlists
    ADD CONSTRAINT oob_callback_allowlists_pkey PRIMARY KEY (id);


--
-- Name: oob_locks oob_locks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oob_locks
    ADD CONSTRAINT oob_locks_pkey PRIMARY KEY (user_handle);


--
-- Name: oob_operations oob_operations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oob_operations
    ADD CONSTRAINT oob_operations_pkey PRIMARY KEY (id);


--
-- Name: people people_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.people
    ADD CONSTRAINT people_pkey PRIMARY KEY (id);


--
-- Name: refresh_tokens refresh_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.refresh_tokens
    ADD CONSTRAINT refresh_tokens_pkey PRIMARY KEY (id);


--
-- Name: server_settings server_settings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.server_settings
    ADD CONSTRAINT server_settings_pkey PRIMARY KEY (key);


--
-- Name: session_signing_keys session_signing_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.session_signing_keys
    ADD CONSTRAINT session_signing_keys_pkey PRIMARY KEY (id);


--
-- Name: tester_runs tester_runs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tester_runs
    ADD CONSTRAINT tester_runs_pkey PRIMARY KEY (id);


--
-- Name: _fluent_migrations uq:_fluent_migrations.name; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public._fluent_migrations
    ADD CONSTRAINT "uq:_fluent_migrations.name" UNIQUE (name);


--
-- Name: admin_sign_in_attempts uq:admin_sign_in_attempts.state_hash; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_sign_in_attempts
    ADD CONSTRAINT "uq:admin_sign_in_attempts.state_hash" UNIQUE (state_hash);


--
-- Name: api_keys uq:api_keys.key_hash; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT "uq:api_keys.key_hash" UNIQUE (key_hash);


--
-- Name: apple_nonces uq:apple_nonces.nonce_hash; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apple_nonces
    ADD CONSTRAINT "uq:apple_nonces.nonce_hash" UNIQUE (nonce_hash);


--
-- Name: apple_notifications uq:apple_notifications.jti; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apple_notifications
    ADD CONSTRAINT "uq:apple_notifications.jti" UNIQUE (jti);


--
-- Name: apps uq:apps.name; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apps
    ADD CONSTRAINT "uq:apps.name" UNIQUE (name);


--
-- Name: backchannel_logout_deliveries uq:backchannel_logout_deliveries.client_id+backchannel_logout_d; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.backchannel_logout_deliveries
    ADD CONSTRAINT "uq:backchannel_logout_deliveries.client_id+backchannel_logout_d" UNIQUE (client_id, session_id);


--
-- Name: dashboard_sessions uq:dashboard_sessions.token_hash; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.dashboard_sessions
    ADD CONSTRAINT "uq:dashboard_sessions.token_hash" UNIQUE (token_hash);


--
-- Name: device_secrets uq:device_secrets.secret_hash; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.device_secrets
    ADD CONSTRAINT "uq:device_secrets.secret_hash" UNIQUE (secret_hash);


--
-- Name: email_login_tokens uq:email_login_tokens.token_hash; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.email_login_tokens
    ADD CONSTRAINT "uq:email_login_tokens.token_hash" UNIQUE (token_hash);


--
-- Name: oauth_clients uq:oauth_clients.client_id; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_clients
    ADD CONSTRAINT "uq:oauth_clients.client_id" UNIQUE (client_id);


--
-- Name: people uq:people.issuer+people.subject; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.people
    ADD CONSTRAINT "uq:people.issuer+people.subject" UNIQUE (issuer, subject);


--
-- Name: refresh_tokens uq:refresh_tokens.token_hash; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.refresh_tokens
    ADD CONSTRAINT "uq:refresh_tokens.token_hash" UNIQUE (token_hash);


--
-- Name: session_signing_keys uq:session_signing_keys.kid; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.session_signing_keys
    ADD CONSTRAINT "uq:session_signing_keys.kid" UNIQUE (kid);


--
-- Name: users uq:users.apple_subject; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT "uq:users.apple_subject" UNIQUE (apple_subject);


--
-- Name: user_sessions user_sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.user_sessions
    ADD CONSTRAINT user_sessions_pkey PRIMARY KEY (id);


--
-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);


--
-- Name: webhook_deliveries webhook_deliveries_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id);


--
-- Name: webhooks webhooks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhooks
    ADD CONSTRAINT webhooks_pkey PRIMARY KEY (id);


--
-- Name: apple_nonces_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX apple_nonces_expiry ON public.apple_nonces USING btree (expires_at);


--
-- Name: backchannel_deliveries_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX backchannel_deliveries_due ON public.backchannel_logout_deliveries USING btree (status, next_attempt_at);


--
-- Name: backchannel_deliveries_run; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX backchannel_deliveries_run ON public.backchannel_logout_deliveries USING btree (run_id);


--
-- Name: custodies_by_device; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX custodies_by_device ON public.custodies USING btree (device_id, checked_out_at);


--
-- Name: custodies_by_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX custodies_by_user ON public.custodies USING btree (user_id, checked_out_at);


--
-- Name: custodies_open; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX custodies_open ON public.custodies USING btree (device_id) WHERE (checked_in_at IS NULL);


--
-- Name: custodies_open_by_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX custodies_open_by_user ON public.custodies USING btree (user_id) WHERE (checked_in_at IS NULL);


--
-- Name: device_history_by_device; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX device_history_by_device ON public.device_history USING btree (device_id, created_at);


--
-- Name: device_secrets_device; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX device_secrets_device ON public.device_secrets USING btree (device_id);


--
-- Name: devices_by_name; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX devices_by_name ON public.devices USING btree (name);


--
-- Name: devices_by_site; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX devices_by_site ON public.devices USING btree (site, name);


--
-- Name: devices_by_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX devices_by_status ON public.devices USING btree (status, name);


--
-- Name: devices_serial_number; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX devices_serial_number ON public.devices USING btree (serial_number);


--
-- Name: enrolled_devices_fleet_device; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX enrolled_devices_fleet_device ON public.enrolled_devices USING btree (fleet_device_id);


--
-- Name: enrolled_devices_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX enrolled_devices_user ON public.enrolled_devices USING btree (user_handle, enrolled_at);


--
-- Name: logout_item_reissues_by_run; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX logout_item_reissues_by_run ON public.logout_item_reissues USING btree (run_id, issued_at);


--
-- Name: logout_items_by_app; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX logout_items_by_app ON public.logout_items USING btree (app_id, finished_at);


--
-- Name: logout_items_pending_by_run; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX logout_items_pending_by_run ON public.logout_items USING btree (run_id) WHERE (status = 'pending'::text);


--
-- Name: logout_items_pending_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX logout_items_pending_due ON public.logout_items USING btree (deadline_at) WHERE (status = 'pending'::text);


--
-- Name: logout_items_run; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX logout_items_run ON public.logout_items USING btree (run_id);


--
-- Name: logout_runs_by_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX logout_runs_by_created ON public.logout_runs USING btree (created_at);


--
-- Name: logout_runs_by_outcome; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX logout_runs_by_outcome ON public.logout_runs USING btree (status, finished_at);


--
-- Name: logout_runs_device; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX logout_runs_device ON public.logout_runs USING btree (device_id);


--
-- Name: mdm_commands_device; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mdm_commands_device ON public.mdm_commands USING btree (device_id, created_at);


--
-- Name: mdm_commands_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mdm_commands_due ON public.mdm_commands USING btree (status, next_attempt_at);


--
-- Name: mdm_commands_owed; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mdm_commands_owed ON public.mdm_commands USING btree (device_id, status);


--
-- Name: oob_operations_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oob_operations_due ON public.oob_operations USING btree (status, expires_at);


--
-- Name: refresh_tokens_session; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX refresh_tokens_session ON public.refresh_tokens USING btree (session_id);


--
-- Name: user_sessions_device; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX user_sessions_device ON public.user_sessions USING btree (device_id);


--
-- Name: user_sessions_device_secret; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX user_sessions_device_secret ON public.user_sessions USING btree (device_secret_id);


--
-- Name: user_sessions_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX user_sessions_user ON public.user_sessions USING btree (user_id);


--
-- Name: users_email; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX users_email ON public.users USING btree (email);


--
-- Name: webhook_deliveries_by_run; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_by_run ON public.webhook_deliveries USING btree (run_id);


--
-- Name: webhook_deliveries_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_due ON public.webhook_deliveries USING btree (status, next_attempt_at);


--
-- Name: webhook_deliveries_webhook; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_webhook ON public.webhook_deliveries USING btree (webhook_id);


--
-- Name: logout_items logout_items_run_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.logout_items
    ADD CONSTRAINT logout_items_run_id_fkey FOREIGN KEY (run_id) REFERENCES public.logout_runs(id) ON DELETE CASCADE;


--
-- Name: logout_runs logout_runs_device_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.logout_runs
    ADD CONSTRAINT logout_runs_device_id_fkey FOREIGN KEY (device_id) REFERENCES public.devices(id) ON DELETE CASCADE;


--
-- Name: webhook_deliveries webhook_deliveries_webhook_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_webhook_id_fkey FOREIGN KEY (webhook_id) REFERENCES public.webhooks(id) ON DELETE CASCADE;


--
-- PostgreSQL database dump complete
--

\unrestrict qGA0QTVD985LEBGUV8MVXsMUHUNg89N8ejNW2YJ7zEXGedRTayY2LTqI4pcH8EX

