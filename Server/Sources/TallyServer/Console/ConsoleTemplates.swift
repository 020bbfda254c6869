import Mustache

/// The console's pages as Mustache templates, compiled into the binary so that a deployed
/// `tally` needs no folder beside it. Every `{{value}}` is HTML-escaped (quotes included);
/// no template uses the unescaped forms. Texts come from ``ConsoleText`` as `t.key`.
enum ConsoleTemplates {
    /// The templates by name; `layout` is the parent of every page.
    static func library() throws -> MustacheLibrary {
        var library = MustacheLibrary()
        for (name, text) in all { try library.register(text, named: name) }
        return library
    }

    static let all: [(String, String)] = [
        ("layout", layout), ("login", login), ("overview", overview), ("chart", chart), ("metrics", metrics), ("transactions", transactions),
        ("ledger", ledger),
        ("user", user), ("products", products), ("notifications", notifications), ("notification", notification), ("audit", audit),
        ("search", search), ("message", message),
    ]

    static let layout = """
        <!doctype html>
        <html lang="{{lang}}">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · Tally</title>
        <link rel="stylesheet" href="/console/assets/console.css">
        </head>
        <body>
        <header class="top">
        <a class="brand" href="/console">Tally</a>
        {{#signedIn}}
        <nav id="nav">{{#nav}}<a id="nav-{{id}}" href="{{href}}"{{#current}} aria-current="page"{{/current}}>{{label}}</a>{{/nav}}</nav>
        <form id="search" method="get" action="/console/search" role="search">
        <input name="q" aria-label="{{t.search_label}}" placeholder="{{t.search_placeholder}}" maxlength="200">
        <button type="submit">{{t.search}}</button>
        </form>
        <span class="who">{{actor}}{{#readOnly}} · {{t.read_only}}{{/readOnly}}</span>
        <form id="sign-out" method="post" action="/console/logout">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <button id="sign-out-submit" type="submit">{{t.sign_out}}</button>
        </form>
        {{/signedIn}}
        <span class="lang"><a id="lang-en" href="{{langEN}}" hreflang="en">English</a> · <a id="lang-uk" href="{{langUK}}" hreflang="uk">Українська</a></span>
        </header>
        <main id="page-{{page}}">
        <h1>{{title}}</h1>
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        {{$content}}{{/content}}
        </main>
        </body>
        </html>
        """

    static let login = """
        {{<layout}}{{$content}}
        <form id="sign-in" method="post" action="{{action}}" class="card narrow">
        <label>{{t.operator}} <input name="operator" autocomplete="username" maxlength="64" value="{{operator}}"></label>
        <p class="hint">{{t.operator_hint}}</p>
        <label>{{t.password}} <input name="password" type="password" autocomplete="current-password" maxlength="1024" required></label>
        <button id="sign-in-submit" type="submit">{{t.sign_in}}</button>
        </form>
        {{/content}}{{/layout}}
        """

    static let overview = """
        {{<layout}}{{$content}}
        <form id="window" method="get" action="/console" class="filters">
        <label>{{t.window}} <select name="window">{{#windows}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/windows}}</select></label>
        <label>{{t.environment}} <select name="environment"><option value="">{{t.any}}</option>{{#environments}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/environments}}</select></label>
        <button type="submit">{{t.show}}</button>
        <span class="hint">{{from}} – {{to}} UTC</span>
        </form>
        <section class="figures">
        <div class="figure"><span class="label">{{t.purchases}}</span><span id="purchase-count" class="number">{{purchases}}</span></div>
        <div class="figure"><span class="label">{{t.refunds}}</span><span id="refund-count" class="number">{{refunds}}</span></div>
        <div class="figure"><span class="label">{{t.verification_failures}}</span><span id="failure-count" class="number">{{failureCount}}</span></div>
        </section>
        <figure class="chart">
        <svg id="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {{chart.width}} {{chart.height}}" role="img" aria-label="{{t.chart_label}}">
        <line x1="0" y1="{{chart.base}}" x2="{{chart.width}}" y2="{{chart.base}}" class="axis"/>
        {{#chart.bars}}<rect x="{{x}}" y="{{y}}" width="{{w}}" height="{{h}}" class="{{kind}}"><title>{{label}}</title></rect>{{/chart.bars}}
        {{#chart.ticks}}<text x="{{x}}" y="{{y}}" class="tick">{{label}}</text>{{/chart.ticks}}
        <text x="4" y="12" class="tick">{{chart.maximum}}</text>
        </svg>
        <figcaption><span class="key purchase"></span>{{t.purchases}} <span class="key refund"></span>{{t.refunds}}</figcaption>
        </figure>
        <h2>{{t.revenue}}</h2>
        <table id="revenue"><thead><tr><th>{{t.currency}}</th><th>{{t.storefront}}</th><th>{{t.count}}</th><th>{{t.amount}}</th></tr></thead>
        <tbody>{{#revenue}}<tr class="row"><td>{{currency}}</td><td>{{storefront}}</td><td class="number">{{count}}</td><td class="number">{{amount}}</td></tr>{{/revenue}}
        {{^revenue}}<tr><td colspan="4" class="empty">{{t.none}}</td></tr>{{/revenue}}</tbody></table>
        <h2>{{t.refunded}}</h2>
        <table id="refunded"><thead><tr><th>{{t.currency}}</th><th>{{t.count}}</th><th>{{t.amount}}</th></tr></thead>
        <tbody>{{#refunded}}<tr class="row"><td>{{currency}}</td><td class="number">{{count}}</td><td class="number">{{amount}}</td></tr>{{/refunded}}
        {{^refunded}}<tr><td colspan="3" class="empty">{{t.none}}</td></tr>{{/refunded}}</tbody></table>
        <h2>{{t.ledger_movements}}</h2>
        <table id="movements"><thead><tr><th>{{t.currency}}</th><th>{{t.kind}}</th><th>{{t.count}}</th><th>{{t.amount}}</th></tr></thead>
        <tbody>{{#movements}}<tr class="row"><td>{{currency}}</td><td>{{kind}}</td><td class="number">{{count}}</td><td class="number">{{amount}}</td></tr>{{/movements}}
        {{^movements}}<tr><td colspan="4" class="empty">{{t.none}}</td></tr>{{/movements}}</tbody></table>
        <h2>{{t.outstanding_debt}}</h2>
        <table id="debt"><thead><tr><th>{{t.currency}}</th><th>{{t.users}}</th><th>{{t.amount}}</th></tr></thead>
        <tbody>{{#debt}}<tr class="row"><td>{{currency}}</td><td class="number">{{count}}</td><td class="number">{{amount}}</td></tr>{{/debt}}
        {{^debt}}<tr><td colspan="3" class="empty">{{t.none}}</td></tr>{{/debt}}</tbody></table>
        <h2>{{t.verification_failures}}</h2>
        <table id="failures"><thead><tr><th>{{t.source}}</th><th>{{t.code}}</th><th>{{t.count}}</th></tr></thead>
        <tbody>{{#failures}}<tr class="row"><td>{{currency}}</td><td>{{kind}}</td><td class="number">{{count}}</td></tr>{{/failures}}
        {{^failures}}<tr><td colspan="3" class="empty">{{t.none}}</td></tr>{{/failures}}</tbody></table>
        {{/content}}{{/layout}}
        """

    /// A chart of ``ConsoleChart``: its bars or lines, the dates under them and the largest value.
    static let chart = """
        <svg class="chart-{{kind}}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {{width}} {{height}}" role="img" aria-label="{{label}}">
        <line x1="0" y1="{{base}}" x2="{{width}}" y2="{{base}}" class="axis"/>
        {{#bars}}<rect x="{{x}}" y="{{y}}" width="{{w}}" height="{{h}}" class="{{kind}}"><title>{{label}}</title></rect>{{/bars}}
        {{#lines}}<polyline points="{{points}}" class="line {{kind}}"/>{{#dots}}<circle cx="{{x}}" cy="{{y}}" r="2.5" class="dot {{kind}}"><title>{{label}}</title></circle>{{/dots}}{{/lines}}
        {{#ticks}}<text x="{{x}}" y="{{y}}" class="tick">{{label}}</text>{{/ticks}}
        <text x="4" y="12" class="tick">{{maximum}}</text>
        </svg>
        """

    /// The metrics (docs/metrics.md); a count of transactions links to them.
    static let metrics = """
        {{<layout}}{{$content}}
        <form id="metrics-filters" method="get" action="/console/metrics" class="filters">
        <label>{{t.window}} <select name="window">{{#windows}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/windows}}</select></label>
        <label>{{t.environment}} <select name="environment">{{#environments}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/environments}}</select></label>
        <label>{{t.product}} <select name="product"><option value="">{{t.any}}</option>{{#products}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/products}}</select></label>
        <label>{{t.metrics_group}} <input name="group" value="{{filter.group}}" maxlength="128" placeholder="{{t.metrics_group_hint}}"></label>
        <button type="submit">{{t.show}}</button>
        {{#from}}<span class="hint">{{from}} – {{through}} UTC</span>{{/from}}
        </form>
        <p class="hint">{{t.metrics_definitions}}</p>
        <section class="figures">
        <div class="figure"><span class="label">{{t.metrics_active_subscriptions}}</span><span id="active-subscriptions" class="number">{{activeSubscriptions}}</span></div>
        <div class="figure"><span class="label">{{t.metrics_active_trials}}</span><span id="active-trials" class="number">{{activeTrials}}</span></div>
        </section>
        {{#activity}}<figure class="chart" id="activity-chart">
        {{>chart}}
        <figcaption><span class="key active"></span>{{t.metrics_active_subscriptions}} <span class="key trial"></span>{{t.metrics_active_trials}}</figcaption>
        </figure>{{/activity}}
        <h2>{{t.metrics_days}}</h2>
        <p class="actions"><a id="export-days" href="{{exportHref.days}}" download>{{t.export_csv}}</a></p>
        <table id="days" class="list"><thead><tr><th>{{t.metrics_day}}</th><th>{{t.metrics_active_subscriptions}}</th><th>{{t.metrics_active_trials}}</th><th>{{t.metrics_new}}</th><th>{{t.metrics_renewed}}</th><th>{{t.metrics_churned}}</th><th>{{t.metrics_trials_started}}</th></tr></thead>
        <tbody>{{#days}}<tr class="row"><td><a class="day-link" href="{{href}}">{{day}}</a></td><td class="number">{{active}}</td><td class="number">{{trials}}</td><td class="number">{{new}}</td><td class="number">{{renewed}}</td><td class="number">{{churned}}</td><td class="number">{{trialsStarted}}</td></tr>{{/days}}
        {{^days}}<tr><td colspan="7" class="empty">{{t.none}}</td></tr>{{/days}}</tbody></table>
        <h2>{{t.metrics_revenue}}</h2>
        {{#revenueCharts}}<figure class="chart revenue-chart" data-currency="{{currency}}">{{#chart}}{{>chart}}{{/chart}}<figcaption><span class="key revenue"></span>{{t.metrics_revenue_per_day}}: {{currency}}</figcaption></figure>{{/revenueCharts}}
        <table id="refund-rates"><thead><tr><th>{{t.currency}}</th><th>{{t.purchases}}</th><th>{{t.amount}}</th><th>{{t.refunds}}</th><th>{{t.refunded}}</th><th>{{t.metrics_refund_rate}}</th></tr></thead>
        <tbody>{{#refundRates}}<tr class="row"><td class="currency">{{currency}}</td><td class="number"><a class="purchases-link" href="{{purchasesHref}}">{{purchases}}</a></td><td class="number">{{amount}}</td><td class="number"><a class="refunds-link" href="{{refundsHref}}">{{refunds}}</a></td><td class="number">{{refunded}}</td><td class="refund-rate number">{{rate}}</td></tr>{{/refundRates}}
        {{^refundRates}}<tr><td colspan="6" class="empty">{{t.none}}</td></tr>{{/refundRates}}</tbody></table>
        <p class="actions"><a id="export-revenue" href="{{exportHref.revenue}}" download>{{t.export_csv}}</a></p>
        <table id="revenue" class="list"><thead><tr><th>{{t.metrics_day}}</th><th>{{t.currency}}</th><th>{{t.purchases}}</th><th>{{t.amount}}</th><th>{{t.refunds}}</th><th>{{t.refunded}}</th></tr></thead>
        <tbody>{{#revenue}}<tr class="row"><td>{{day}}</td><td class="currency">{{currency}}</td><td class="number"><a class="purchases-link" href="{{purchasesHref}}">{{purchases}}</a></td><td class="revenue-amount number">{{amount}}</td><td class="number"><a class="refunds-link" href="{{refundsHref}}">{{refunds}}</a></td><td class="number">{{refunded}}</td></tr>{{/revenue}}
        {{^revenue}}<tr><td colspan="6" class="empty">{{t.none}}</td></tr>{{/revenue}}</tbody></table>
        <h2>{{t.metrics_mrr}}</h2>
        <p class="actions"><a id="export-mrr" href="{{exportHref.mrr}}" download>{{t.export_csv}}</a></p>
        <table id="mrr"><thead><tr><th>{{t.currency}}</th><th>{{t.metrics_mrr_start}}</th><th>{{t.metrics_new}}</th><th>{{t.metrics_expansion}}</th><th>{{t.metrics_contraction}}</th><th>{{t.metrics_churned}}</th><th>{{t.metrics_mrr_end}}</th></tr></thead>
        <tbody>{{#mrr}}<tr class="row"><td class="currency">{{currency}}</td><td class="number">{{start}}</td><td class="number">+{{new}}</td><td class="number">+{{expansion}}</td><td class="number">−{{contraction}}</td><td class="number">−{{churned}}</td><td class="mrr-end number">{{end}}</td></tr>{{/mrr}}
        {{^mrr}}<tr><td colspan="7" class="empty">{{t.none}}</td></tr>{{/mrr}}</tbody></table>
        <h2>{{t.metrics_trials}}</h2>
        <p class="actions"><a id="export-trials" href="{{exportHref.trials}}" download>{{t.export_csv}}</a></p>
        <table id="trials"><thead><tr><th>{{t.metrics_month}}</th><th>{{t.metrics_trials_started}}</th><th>{{t.metrics_converted}}</th><th>{{t.metrics_conversion}}</th></tr></thead>
        <tbody>{{#trials}}<tr class="row"><td>{{month}}</td><td class="number">{{started}}</td><td class="number">{{converted}}</td><td class="number">{{rate}}</td></tr>{{/trials}}
        {{^trials}}<tr><td colspan="4" class="empty">{{t.none}}</td></tr>{{/trials}}</tbody></table>
        <h2>{{t.metrics_retention}}</h2>
        <p class="hint">{{t.metrics_retention_hint}}</p>
        <p class="actions"><a id="export-retention" href="{{exportHref.retention}}" download>{{t.export_csv}}</a></p>
        <table id="retention"><thead><tr><th>{{t.metrics_month}}</th><th>{{t.metrics_subscribers}}</th>{{#retentionMonths}}<th>{{.}}</th>{{/retentionMonths}}</tr></thead>
        <tbody>{{#retention}}<tr class="row"><td>{{month}}</td><td class="number">{{subscribers}}</td>{{#cells}}<td class="number">{{#percent}}{{count}} <small>{{percent}}</small>{{/percent}}</td>{{/cells}}</tr>{{/retention}}
        {{^retention}}<tr><td colspan="2" class="empty">{{t.none}}</td></tr>{{/retention}}</tbody></table>
        <h2>{{t.metrics_credits}}</h2>
        <p class="actions"><a id="export-credits" href="{{exportHref.credits}}" download>{{t.export_csv}}</a></p>
        <table id="credits"><thead><tr><th>{{t.currency}}</th><th>{{t.metrics_sold}}</th><th>{{t.metrics_spent}}</th><th>{{t.metrics_outstanding}}</th></tr></thead>
        <tbody>{{#credits}}<tr class="row"><td class="currency">{{currency}}</td><td class="number"><a href="{{soldHref}}">{{sold}}</a></td><td class="number"><a href="{{spentHref}}">{{spent}}</a></td><td class="number">{{outstanding}}</td></tr>{{/credits}}
        {{^credits}}<tr><td colspan="4" class="empty">{{t.none}}</td></tr>{{/credits}}</tbody></table>
        {{/content}}{{/layout}}
        """

    static let transactions = """
        {{<layout}}{{$content}}
        <form id="filters" method="get" action="/console/transactions" class="filters">
        <label>{{t.kind}} <select name="kind"><option value="">{{t.any}}</option>{{#kinds}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/kinds}}</select></label>
        <label>{{t.status}} <select name="status"><option value="">{{t.any}}</option>{{#statuses}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/statuses}}</select></label>
        <label>{{t.environment}} <select name="environment"><option value="">{{t.any}}</option>{{#environments}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/environments}}</select></label>
        <label>{{t.product}} <select name="product"><option value="">{{t.any}}</option>{{#products}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/products}}</select></label>
        <label>{{t.received_from}} <input type="date" name="from" value="{{filter.from}}"></label>
        <label>{{t.received_to}} <input type="date" name="to" value="{{filter.to}}"></label>
        <label>{{t.purchased_from}} <input type="date" name="purchased_from" value="{{filter.purchased_from}}"></label>
        <label>{{t.purchased_to}} <input type="date" name="purchased_to" value="{{filter.purchased_to}}"></label>
        <label>{{t.revoked_from}} <input type="date" name="revoked_from" value="{{filter.revoked_from}}"></label>
        <label>{{t.revoked_to}} <input type="date" name="revoked_to" value="{{filter.revoked_to}}"></label>
        <label>{{t.currency}} <input name="currency" value="{{filter.currency}}" maxlength="64" size="6"></label>
        <label>{{t.metrics_group}} <input name="group" value="{{filter.group}}" maxlength="128" size="12"></label>
        <label>{{t.user}} <input name="user" value="{{filter.user}}" maxlength="128"></label>
        <label>{{t.search_text}} <input name="q" value="{{filter.q}}" maxlength="200" placeholder="{{t.transactions_search_hint}}"></label>
        <input type="hidden" name="limit" value="{{limit}}">
        <button type="submit">{{t.filter}}</button>
        <a href="/console/transactions">{{t.clear}}</a>
        </form>
        <p class="actions"><a id="export" href="{{exportHref}}" download>{{t.export_csv}}</a></p>
        <table id="rows" class="list"><thead><tr><th>{{t.transaction}}<br><small>{{t.original}}</small></th><th>{{t.product}}<br><small>{{t.kind}} · {{t.environment}}</small></th><th>{{t.status}}</th><th>{{t.price}}</th><th>{{t.purchased}}<br><small>{{t.received}}</small></th><th>{{t.user}}</th></tr></thead>
        <tbody>{{#rows}}<tr class="row"><td class="id"><span class="transaction-id">{{transactionID}}</span><br><small class="original-id">{{originalTransactionID}}</small></td><td class="product">{{productID}}<br><small class="kind">{{kind}} · {{environment}}</small></td><td class="status {{status}}">{{statusLabel}}{{#revokedAt}}<br><small><time>{{revokedAt}}</time></small>{{/revokedAt}}</td><td class="number">{{price}}</td><td><time>{{purchased}}</time><br><small><time class="received">{{receivedAt}}</time></small></td><td class="id">{{#userID}}<a class="user-link" href="/console/users/{{userID}}">{{userID}}</a>{{/userID}}</td></tr>{{/rows}}
        {{^rows}}<tr><td colspan="6" class="empty">{{t.no_rows}}</td></tr>{{/rows}}</tbody></table>
        <p class="paging">{{#firstHref}}<a id="first" href="{{firstHref}}">{{t.first_page}}</a>{{/firstHref}} {{#nextHref}}<a id="next" rel="next" href="{{nextHref}}">{{t.next_page}}</a>{{/nextHref}}</p>
        {{/content}}{{/layout}}
        """

    static let ledger = """
        {{<layout}}{{$content}}
        <form id="filters" method="get" action="/console/ledger" class="filters">
        <label>{{t.currency}} <select name="currency"><option value="">{{t.any}}</option>{{#currencies}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/currencies}}</select></label>
        <label>{{t.kind}} <select name="kind"><option value="">{{t.any}}</option>{{#kinds}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/kinds}}</select></label>
        <label>{{t.user}} <input name="user" value="{{filter.user}}" maxlength="128"></label>
        <label>{{t.from}} <input type="date" name="from" value="{{filter.from}}"></label>
        <label>{{t.to}} <input type="date" name="to" value="{{filter.to}}"></label>
        <input type="hidden" name="limit" value="{{limit}}">
        <button type="submit">{{t.filter}}</button>
        <a href="/console/ledger">{{t.clear}}</a>
        </form>
        <p class="actions"><a id="export" href="{{exportHref}}" download>{{t.export_csv}}</a></p>
        <table id="rows" class="list"><thead><tr><th>#</th><th>{{t.time}}</th><th>{{t.user}}</th><th>{{t.currency}}</th><th>{{t.kind}}</th><th>{{t.bucket}}</th><th>{{t.amount}}</th><th>{{t.transaction}}</th><th>{{t.reference}}</th></tr></thead>
        <tbody>{{#rows}}<tr class="row"><td class="entry-id">{{id}}</td><td><time>{{at}}</time></td><td class="id"><a class="user-link" href="/console/users/{{userID}}">{{userID}}</a></td><td>{{currency}}</td><td>{{kind}}</td><td>{{bucket}}</td><td class="amount number">{{amount}}</td><td class="id">{{transactionID}}</td><td class="free">{{reference}}</td></tr>{{/rows}}
        {{^rows}}<tr><td colspan="9" class="empty">{{t.no_rows}}</td></tr>{{/rows}}</tbody></table>
        <p class="paging">{{#firstHref}}<a id="first" href="{{firstHref}}">{{t.first_page}}</a>{{/firstHref}} {{#nextHref}}<a id="next" rel="next" href="{{nextHref}}">{{t.next_page}}</a>{{/nextHref}}</p>
        {{/content}}{{/layout}}
        """

    static let user = """
        {{<layout}}{{$content}}
        <dl class="facts">
        <dt>{{t.user_id}}</dt><dd id="user-id">{{account.userID}}</dd>
        <dt>{{t.app_user_id}}</dt><dd>{{account.appUserID}}</dd>
        <dt>{{t.app_account_token}}</dt><dd>{{account.appAccountToken}}</dd>
        <dt>{{t.created}}</dt><dd><time>{{account.created}}</time></dd>
        </dl>
        <p class="actions"><a href="/console/transactions?user={{account.userID}}">{{t.transactions_of_user}}</a> · <a href="/console/ledger?user={{account.userID}}">{{t.ledger_of_user}}</a></p>
        <h2>{{t.balances}}</h2>
        <table id="balances"><thead><tr><th>{{t.currency}}</th><th>{{t.available}}</th><th>{{t.held}}</th><th>{{t.debt}}</th><th>{{t.allowance}}</th><th>{{t.spendable}}</th></tr></thead>
        <tbody>{{#balances}}<tr class="balance" data-currency="{{currency}}"><td>{{name}}</td><td class="available number">{{available}}</td><td class="number">{{held}}</td><td class="debt number">{{debt}}</td><td>{{allowance}}</td><td class="number">{{spendable}}</td></tr>{{/balances}}</tbody></table>
        <h2>{{t.entitlements}}</h2>
        <table id="entitlements"><thead><tr><th>{{t.entitlement}}</th><th>{{t.active}}</th><th>{{t.product}}</th><th>{{t.expires}}</th></tr></thead>
        <tbody>{{#entitlements}}<tr class="row"><td>{{id}}</td><td>{{active}}</td><td>{{productID}}</td><td><time>{{expires}}</time></td></tr>{{/entitlements}}
        {{^entitlements}}<tr><td colspan="4" class="empty">{{t.none}}</td></tr>{{/entitlements}}</tbody></table>
        <h2>{{t.subscriptions}}</h2>
        <table id="subscriptions"><thead><tr><th>{{t.original}}</th><th>{{t.product}}</th><th>{{t.status}}</th><th>{{t.expires}}</th><th>{{t.will_renew}}</th></tr></thead>
        <tbody>{{#subscriptions}}<tr class="row"><td>{{originalTransactionID}}</td><td>{{productID}}</td><td>{{status}}</td><td><time>{{expires}}</time></td><td>{{willRenew}}</td></tr>{{/subscriptions}}
        {{^subscriptions}}<tr><td colspan="5" class="empty">{{t.none}}</td></tr>{{/subscriptions}}</tbody></table>
        <h2>{{t.granted_entitlements}}</h2>
        <table id="grants"><thead><tr><th>{{t.entitlement}}</th><th>{{t.until}}</th><th>{{t.reason}}</th><th>{{t.granted_by}}</th><th>{{t.revoked}}</th><th></th></tr></thead>
        <tbody>{{#grants}}<tr class="row"><td>{{entitlement}}</td><td><time>{{until}}</time></td><td>{{reason}}</td><td>{{grantedBy}}</td><td>{{revoked}}</td><td>{{#revocable}}<form method="post" action="/console/users/{{userID}}/entitlements/{{id}}/revoke" class="inline"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" class="revoke">{{t.revoke}}</button></form>{{/revocable}}</td></tr>{{/grants}}
        {{^grants}}<tr><td colspan="6" class="empty">{{t.none}}</td></tr>{{/grants}}</tbody></table>
        {{^readOnly}}
        <section class="forms">
        <form id="adjust" method="post" action="/console/users/{{account.userID}}/adjustments" class="card">
        <h2>{{t.adjust_title}}</h2>
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="idempotency_key" value="{{adjustKey}}">
        <label>{{t.currency}} <select name="currency">{{#currencyOptions}}<option value="{{value}}">{{label}}</option>{{/currencyOptions}}</select></label>
        <label>{{t.amount}} <input name="amount" inputmode="numeric" required maxlength="20" placeholder="+10 / -5"></label>
        <label>{{t.reason}} <input name="reason" required maxlength="500"></label>
        <button id="adjust-submit" type="submit">{{t.adjust}}</button>
        </form>
        <form id="grant" method="post" action="/console/users/{{account.userID}}/entitlements" class="card">
        <h2>{{t.grant_title}}</h2>
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="idempotency_key" value="{{grantKey}}">
        <label>{{t.entitlement}} <select name="entitlement">{{#entitlementOptions}}<option value="{{.}}">{{.}}</option>{{/entitlementOptions}}</select></label>
        <label>{{t.until}} <input type="date" name="until" required></label>
        <label>{{t.reason}} <input name="reason" required maxlength="500"></label>
        <button id="grant-submit" type="submit">{{t.grant}}</button>
        </form>
        </section>
        {{/readOnly}}
        <h2>{{t.timeline}}</h2>
        <ol id="timeline">{{#timeline}}<li class="event {{kind}}"><time>{{at}}</time> <span class="kind">{{kindLabel}}</span> <span class="summary">{{summary}}</span>{{#transactionID}} <a href="/console/transactions?q={{transactionID}}">{{transactionID}}</a>{{/transactionID}} <span class="detail">{{detail}}</span></li>{{/timeline}}</ol>
        {{/content}}{{/layout}}
        """

    static let products = """
        {{<layout}}{{$content}}
        <p class="hint">{{t.bundle_id}}: {{bundleID}} · {{t.environments}}: {{environmentsText}}</p>
        <h2>{{t.currencies}}</h2>
        <table id="currencies"><thead><tr><th>{{t.code}}</th><th>English</th><th>Українська</th></tr></thead>
        <tbody>{{#currencyRows}}<tr class="row"><td>{{code}}</td><td>{{en}}</td><td>{{uk}}</td></tr>{{/currencyRows}}</tbody></table>
        <h2>{{t.nav_products}}</h2>
        <table id="rows"><thead><tr><th>{{t.product}}</th><th>{{t.kind}}</th><th>{{t.grants}}</th><th>{{t.entitlements}}</th><th>{{t.allowance}}</th><th>{{t.paywall}} (English)</th><th>{{t.paywall}} (Українська)</th></tr></thead>
        <tbody>{{#rows}}<tr class="row"><td class="product">{{productID}}</td><td>{{kind}}</td><td>{{grants}}</td><td>{{entitlements}}</td><td>{{allowance}}</td>
        <td>{{#en}}<strong>{{title}}</strong><br>{{description}}<ul>{{#benefits}}<li>{{.}}</li>{{/benefits}}</ul>{{/en}}</td>
        <td>{{#uk}}<strong>{{title}}</strong><br>{{description}}<ul>{{#benefits}}<li>{{.}}</li>{{/benefits}}</ul>{{/uk}}</td></tr>{{/rows}}</tbody></table>
        {{/content}}{{/layout}}
        """

    static let notifications = """
        {{<layout}}{{$content}}
        <form id="filters" method="get" action="/console/notifications" class="filters">
        <label>{{t.outcome}} <select name="outcome"><option value="">{{t.any}}</option>{{#outcomes}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/outcomes}}</select></label>
        <input type="hidden" name="limit" value="{{limit}}">
        <button type="submit">{{t.filter}}</button>
        </form>
        <p class="hint" id="refused">{{t.notifications_refused}}: {{refused}}</p>
        <p class="actions"><a id="export" href="{{exportHref}}" download>{{t.export_csv}}</a></p>
        <table id="rows" class="list"><thead><tr><th>{{t.received}}</th><th>{{t.type}}</th><th>{{t.outcome}}</th><th>{{t.transaction}}</th><th>{{t.detail}}</th></tr></thead>
        <tbody>{{#rows}}<tr class="row"><td><a class="notification-link" href="/console/notifications/{{uuid}}"><time>{{received}}</time></a></td><td>{{type}}</td><td class="outcome">{{outcome}}</td><td class="id">{{transactionID}}</td><td class="free">{{detail}}</td></tr>{{/rows}}
        {{^rows}}<tr><td colspan="5" class="empty">{{t.no_rows}}</td></tr>{{/rows}}</tbody></table>
        <p class="paging">{{#firstHref}}<a id="first" href="{{firstHref}}">{{t.first_page}}</a>{{/firstHref}} {{#nextHref}}<a id="next" rel="next" href="{{nextHref}}">{{t.next_page}}</a>{{/nextHref}}</p>
        {{/content}}{{/layout}}
        """

    static let notification = """
        {{<layout}}{{$content}}
        <dl class="facts">
        <dt>UUID</dt><dd>{{uuid}}</dd>
        <dt>{{t.type}}</dt><dd>{{type}}</dd>
        <dt>{{t.outcome}}</dt><dd>{{outcome}}</dd>
        <dt>{{t.environment}}</dt><dd>{{environment}}</dd>
        <dt>{{t.transaction}}</dt><dd>{{#transactionID}}<a href="/console/transactions?q={{transactionID}}">{{transactionID}}</a>{{/transactionID}}</dd>
        <dt>{{t.signed}}</dt><dd><time>{{signed}}</time></dd>
        <dt>{{t.received}}</dt><dd><time>{{received}}</time></dd>
        </dl>
        <h2>{{t.payload}}</h2>
        {{#parts}}<h3>{{name}}</h3><pre class="payload">{{json}}</pre>{{/parts}}
        {{/content}}{{/layout}}
        """

    static let audit = """
        {{<layout}}{{$content}}
        <p class="actions"><a id="export" href="{{exportHref}}" download>{{t.export_csv}}</a></p>
        <table id="rows" class="list"><thead><tr><th>#</th><th>{{t.time}}</th><th>{{t.actor}}</th><th>{{t.action}}</th><th>{{t.target}}</th><th>{{t.before}}</th><th>{{t.after}}</th><th>{{t.detail}}</th></tr></thead>
        <tbody>{{#rows}}<tr class="row"><td>{{id}}</td><td><time>{{at}}</time></td><td class="actor">{{actor}}</td><td class="action">{{action}}</td><td class="free">{{target}}</td><td><code>{{before}}</code></td><td><code>{{after}}</code></td><td class="free">{{detail}}</td></tr>{{/rows}}
        {{^rows}}<tr><td colspan="8" class="empty">{{t.no_rows}}</td></tr>{{/rows}}</tbody></table>
        <p class="paging">{{#firstHref}}<a id="first" href="{{firstHref}}">{{t.first_page}}</a>{{/firstHref}} {{#nextHref}}<a id="next" rel="next" href="{{nextHref}}">{{t.next_page}}</a>{{/nextHref}}</p>
        {{/content}}{{/layout}}
        """

    /// A search that names several users: the operator chooses, best match first.
    static let search = """
        {{<layout}}{{$content}}
        <p class="hint">{{t.search_choose_hint}}</p>
        <table id="matches" class="list"><thead><tr><th>{{t.user_id}}</th><th>{{t.search_matched_by}}</th></tr></thead>
        <tbody>{{#matches}}<tr class="row match"><td class="id"><a class="user-link" href="{{href}}">{{userID}}</a></td><td class="field">{{field}}</td></tr>{{/matches}}</tbody></table>
        <p class="actions"><a id="transactions-instead" href="{{transactionsHref}}">{{t.search_transactions_instead}}</a>: <code>{{text}}</code></p>
        {{/content}}{{/layout}}
        """

    /// A page that only says something: an error, a refusal.
    static let message = """
        {{<layout}}{{$content}}
        <p><a href="{{backHref}}">{{t.back}}</a></p>
        {{/content}}{{/layout}}
        """

    /// The console's only style sheet, served from its own origin (`default-src 'self'`).
    static let stylesheet = """
        :root { --ink: #1d2330; --muted: #5b6476; --line: #d9dde5; --accent: #2952cc; --bad: #b3261e; --good: #1e6b3a; --bg: #f7f8fa; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
        header.top { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; padding: 10px 20px; background: #fff; border-bottom: 1px solid var(--line); }
        .brand { font-weight: 700; font-size: 18px; color: var(--ink); text-decoration: none; margin-right: 8px; }
        nav a { margin-right: 12px; color: var(--muted); text-decoration: none; }
        nav a[aria-current=page] { color: var(--accent); font-weight: 600; }
        #search input { width: 260px; }
        .who { color: var(--muted); margin-left: auto; }
        .lang { color: var(--muted); }
        main { padding: 16px 20px 40px; max-width: 1600px; overflow-x: auto; }
        h1 { font-size: 22px; margin: 6px 0 14px; }
        h2 { font-size: 16px; margin: 22px 0 8px; }
        table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid var(--line); }
        th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: break-word; }
        table { font-size: 13px; }
        td time, td.number { white-space: nowrap; }
        /* Ids are read and copied whole: they never break, and the columns of free text (and
           the audit's JSON) give way instead, so that a list reads well from 1,280 px up. */
        td.id, td.id a, td.product { white-space: nowrap; }
        td code, td.free { overflow-wrap: anywhere; }
        td small, th small { color: var(--muted); font-weight: normal; }
        th { background: #eef0f4; font-weight: 600; word-break: normal; }
        td.number, .number { text-align: right; font-variant-numeric: tabular-nums; }
        .empty { color: var(--muted); text-align: center; }
        .filters { display: flex; flex-wrap: wrap; gap: 10px; align-items: end; margin-bottom: 12px; }
        .filters label, .card label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); }
        input, select, button { font: inherit; padding: 4px 6px; border: 1px solid var(--line); border-radius: 4px; background: #fff; }
        button { background: var(--accent); color: #fff; border-color: var(--accent); cursor: pointer; }
        button.revoke { background: var(--bad); border-color: var(--bad); }
        .card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 14px; display: flex; flex-direction: column; gap: 8px; }
        .narrow { max-width: 380px; }
        .forms { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 16px; margin-top: 16px; }
        .notice { background: #e6f4ea; color: var(--good); padding: 8px 12px; border-radius: 4px; }
        .error { background: #fce8e6; color: var(--bad); padding: 8px 12px; border-radius: 4px; }
        .hint { color: var(--muted); font-size: 12px; }
        .figures { display: flex; gap: 16px; flex-wrap: wrap; }
        .figure { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 10px 16px; min-width: 160px; }
        .figure .label { display: block; color: var(--muted); font-size: 12px; }
        .figure .number { font-size: 26px; font-weight: 600; }
        .chart { margin: 16px 0; background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 10px; }
        .chart svg { width: 100%; height: 220px; }
        rect.purchase, .key.purchase { fill: var(--accent); background: var(--accent); }
        rect.refund, .key.refund { fill: var(--bad); background: var(--bad); }
        .key { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 12px; }
        .axis { stroke: var(--line); }
        .tick { font-size: 10px; fill: var(--muted); }
        polyline.line { fill: none; stroke-width: 2; }
        polyline.active { stroke: var(--accent); }
        polyline.trial { stroke: var(--good); }
        circle.active { fill: var(--accent); }
        circle.trial { fill: var(--good); }
        rect.revenue, .key.revenue { fill: var(--accent); background: var(--accent); }
        .key.active { background: var(--accent); }
        .key.trial { background: var(--good); }
        .status.revoked { color: var(--bad); }
        .status.unbound { color: var(--muted); }
        .paging { margin-top: 10px; display: flex; gap: 16px; }
        dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; background: #fff; border: 1px solid var(--line); padding: 10px 14px; border-radius: 6px; }
        dl.facts dt { color: var(--muted); }
        dl.facts dd { margin: 0; word-break: break-all; }
        #timeline { list-style: none; padding: 0; background: #fff; border: 1px solid var(--line); }
        #timeline li { padding: 6px 10px; border-bottom: 1px solid var(--line); }
        #timeline .kind { font-weight: 600; margin: 0 6px; }
        #timeline .refund .kind, #timeline .revoke .kind { color: var(--bad); }
        #timeline .detail { color: var(--muted); }
        pre.payload { background: #fff; border: 1px solid var(--line); padding: 10px; overflow: auto; font-size: 12px; }
        form.inline { display: inline; }
        code { font-size: 12px; }
        """
}
