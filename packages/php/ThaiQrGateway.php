<?php
// Client for the Thai QR payment gateway's merchant API — one file, PHP >= 8.1, no Composer
// dependencies (curl when loaded, PHP streams otherwise).
//
//   require 'ThaiQrGateway.php';
//   $gateway = new ThaiQrGateway\Client('https://pay.example.com', $merchantId, $password);
//   $payment = $gateway->initiate([...]);               // redirect the customer to $payment['redirectUrl']
//   $gateway->status($payment['transactionid']);
//   $gateway->refund($payment['transactionid'], '50.00', ['reason' => 'returned']);
//   $gateway->balance();
//   // in the serverUrl handler, with the RAW body:
//   $ok = ThaiQrGateway\Client::verifyNotification($webhookSecret, ThaiQrGateway\Client::headersFromServer($_SERVER), file_get_contents('php://input'));
//   // on returnUrl: the parameters are only what the browser says unless their signature verifies
//   $result = ThaiQrGateway\Client::verifyReturn($webhookSecret, $_GET);   // null: ask status() instead
//
// Every call returns the gateway's JSON answer as an array when `type` is `valid`, and otherwise
// throws GatewayException with the HTTP status, responsecode, error_code_tag and error_text.

declare(strict_types=1);

namespace ThaiQrGateway;

final class GatewayException extends \RuntimeException
{
    public function __construct(
        public readonly int $httpStatus,
        public readonly ?string $responsecode,
        public readonly ?string $errorCodeTag,
        public readonly ?string $errorText,
        public readonly ?string $requestId,
        public readonly ?array $body,
    ) {
        parent::__construct($errorText ?? "The gateway answered HTTP {$httpStatus} without a readable body.");
    }
}

final class Client
{
    public const VERSION = '0.1.0';
    private const SECRET_PREFIX = 'whsec_';

    private string $baseUrl;

    /**
     * @param string $serviceName the operator's SERVICE_NAME: the balance path is /<serviceName>InstaPay/QueryPayoutBalance
     * @param string|null $transport 'curl' or 'stream'; by default curl when the extension is loaded
     */
    public function __construct(
        string $baseUrl,
        private readonly string $merchantId,
        private readonly string $password,
        private readonly string $serviceName = 'Gateway',
        private readonly int $timeoutSeconds = 30,
        private ?string $transport = null,
    ) {
        if (!preg_match('#^https?://#', $baseUrl)) {
            throw new \InvalidArgumentException('baseUrl must be an http(s) URL');
        }
        $this->baseUrl = rtrim($baseUrl, '/');
        $this->transport ??= extension_loaded('curl') ? 'curl' : 'stream';
    }

    /** POST /transaction/s2s: starts a Thai QR debit payment. Idempotent on trackid. */
    public function initiate(array $request): array
    {
        return $this->post('/transaction/s2s', ['payment_method' => ['type' => 'THAI_DEBIT']] + $request);
    }

    /** POST /transaction/status, by the gateway's transactionid (or, with $byTrackid, your trackid). */
    public function status(string $reference, bool $byTrackid = false): array
    {
        return $this->post('/transaction/status', [$byTrackid ? 'trackid' : 'transactionid' => $reference]);
    }

    /**
     * POST /transaction/refund: refunds all or part of a successful payment. The same request twice
     * refunds once. $options: reason, trackid, bill_currencycode (default THB), idempotencyKey.
     */
    public function refund(string $transactionId, string $amount, array $options = []): array
    {
        $headers = [];
        if (isset($options['idempotencyKey'])) {
            $headers[] = 'Idempotency-Key: ' . $options['idempotencyKey'];
            unset($options['idempotencyKey']);
        }
        $body = ['transactionid' => $transactionId, 'bill_amount' => $amount] + $options + ['bill_currencycode' => 'THB'];
        return $this->post('/transaction/refund', $body, $headers);
    }

    /** POST /<serviceName>InstaPay/QueryPayoutBalance: balanceAmt with four decimals. */
    public function balance(): array
    {
        return $this->post('/' . rawurlencode($this->serviceName) . 'InstaPay/QueryPayoutBalance', []);
    }

    /** Sandbox only: finishes a payment; $outcome is success, failed, cancelled or expired. */
    public function sandboxComplete(string $transactionId, ?string $outcome = null): array
    {
        $body = ['transactionid' => $transactionId];
        if ($outcome !== null) {
            $body['outcome'] = $outcome;
        }
        return $this->post('/sandbox/transaction/complete', $body);
    }

    /**
     * Standard Webhooks verification of a notification. $secrets: one `whsec_…` secret or several
     * (during a rotation). $headers: name => value (any case; see headersFromServer). $rawBody: the
     * bytes as received — never json_decode + json_encode. Returns true only when the timestamp is
     * within $toleranceSeconds of now and a v1 signature matches (constant-time comparison).
     */
    public static function verifyNotification(string|array $secrets, array $headers, string $rawBody, int $toleranceSeconds = 300, ?int $now = null): bool
    {
        return self::checkNotification($secrets, $headers, $rawBody, $toleranceSeconds, $now) === null;
    }

    /** Like verifyNotification, but returns why a notification was refused (null when it verifies). */
    public static function checkNotification(string|array $secrets, array $headers, string $rawBody, int $toleranceSeconds = 300, ?int $now = null): ?string
    {
        $keys = [];
        foreach ((array) $secrets as $secret) {
            $encoded = str_starts_with($secret, self::SECRET_PREFIX) ? substr($secret, strlen(self::SECRET_PREFIX)) : $secret;
            $key = base64_decode($encoded, true);
            if ($encoded === '' || $key === false) {
                return 'malformed secret: expected whsec_<base64>';
            }
            $keys[] = $key;
        }
        if ($keys === []) {
            return 'no secret given';
        }
        $lower = array_change_key_case($headers, CASE_LOWER);
        $id = $lower['webhook-id'] ?? '';
        $timestamp = $lower['webhook-timestamp'] ?? '';
        $signatures = $lower['webhook-signature'] ?? '';
        if (!is_string($id) || $id === '') {
            return 'missing webhook-id header';
        }
        if (!is_string($timestamp) || !preg_match('/^\d{1,15}$/', $timestamp)) {
            return 'missing or malformed webhook-timestamp header';
        }
        if (!is_string($signatures) || trim($signatures) === '') {
            return 'missing webhook-signature header';
        }
        $now ??= time();
        if ((int) $timestamp < $now - $toleranceSeconds) {
            return 'timestamp too old';
        }
        if ((int) $timestamp > $now + $toleranceSeconds) {
            return 'timestamp too far in the future';
        }
        $matched = false;
        foreach ($keys as $key) {
            // Raw HMAC bytes, then base64 (base64 of the hex digest would be another string).
            $expected = base64_encode(hash_hmac('sha256', $id . '.' . $timestamp . '.' . $rawBody, $key, true));
            foreach (preg_split('/\s+/', trim($signatures)) as $entry) {
                $parts = explode(',', $entry, 2);
                if (count($parts) === 2 && $parts[0] === 'v1' && hash_equals($expected, $parts[1])) {
                    $matched = true;
                }
            }
        }
        return $matched ? null : 'no signature matched';
    }

    /**
     * Checks the parameters the customer brought back to returnUrl (docs/hosted-page.md "Back to
     * the merchant"): `signature` over result, responsecode, trackid, transactionid and
     * responsedescription with `ts`, made with the webhook secret. $params: $_GET, or the URL or
     * query string. Returns the verified parameters, or null when they do not verify: then they
     * are only what someone typed; ask status() or wait for the notification.
     */
    public static function verifyReturn(string|array $secrets, array|string $params, int $toleranceSeconds = 300, ?int $now = null): ?array
    {
        $verified = null;
        return self::checkReturn($secrets, $params, $toleranceSeconds, $now, $verified) === null ? $verified : null;
    }

    /** Like verifyReturn, but returns why the return was refused (null when it verifies; $verified gets the parameters). */
    public static function checkReturn(string|array $secrets, array|string $params, int $toleranceSeconds = 300, ?int $now = null, ?array &$verified = null): ?string
    {
        $verified = null;
        $keys = self::hmacKeys($secrets);
        if (is_string($keys)) {
            return $keys;
        }
        if (is_string($params)) {
            // A full URL or just its query; as $_GET reads it, a name given twice counts its last value.
            $query = preg_match('/^[a-z][a-z0-9+.-]*:/i', $params) ? (string) parse_url($params, PHP_URL_QUERY) : ltrim(explode('#', $params, 2)[0], '?');
            $parsed = [];
            parse_str($query, $parsed);
            $params = $parsed;
        }
        $values = [];
        foreach (self::RETURN_SIGNED_PARAMETERS as $name) {
            if (!isset($params[$name]) || !is_string($params[$name])) {
                return "missing {$name} parameter";
            }
            $values[$name] = $params[$name];
        }
        $timestamp = $params['ts'] ?? null;
        $signatures = $params['signature'] ?? null;
        if (!is_string($timestamp)) {
            return 'missing ts parameter';
        }
        if (!is_string($signatures) || trim($signatures) === '') {
            return 'missing signature parameter';
        }
        if (!preg_match('/^\d{1,15}$/', $timestamp)) {
            return 'malformed ts parameter';
        }
        $now ??= time();
        if ((int) $timestamp < $now - $toleranceSeconds) {
            return 'timestamp too old';
        }
        if ((int) $timestamp > $now + $toleranceSeconds) {
            return 'timestamp too far in the future';
        }
        $content = 'return.' . $timestamp . '.' . implode("\n", $values);
        $matched = false;
        foreach ($keys as $key) {
            $expected = base64_encode(hash_hmac('sha256', $content, $key, true));
            foreach (preg_split('/\s+/', trim($signatures)) as $entry) {
                $parts = explode(',', $entry, 2);
                if (count($parts) === 2 && $parts[0] === 'v1' && hash_equals($expected, $parts[1])) {
                    $matched = true;
                }
            }
        }
        if (!$matched) {
            return 'no signature matched';
        }
        $verified = $values;
        return null;
    }

    /** The signed result parameters of a return, in the order they are signed. */
    public const RETURN_SIGNED_PARAMETERS = ['result', 'responsecode', 'trackid', 'transactionid', 'responsedescription'];

    /** @return list<string>|string the HMAC keys of the secrets, or why they are unusable */
    private static function hmacKeys(string|array $secrets): array|string
    {
        $keys = [];
        foreach ((array) $secrets as $secret) {
            $encoded = str_starts_with($secret, self::SECRET_PREFIX) ? substr($secret, strlen(self::SECRET_PREFIX)) : $secret;
            $key = base64_decode($encoded, true);
            if ($encoded === '' || $key === false) {
                return 'malformed secret: expected whsec_<base64>';
            }
            $keys[] = $key;
        }
        return $keys === [] ? 'no secret given' : $keys;
    }

    /** The webhook-* headers from $_SERVER (HTTP_WEBHOOK_ID …), for verifyNotification. */
    public static function headersFromServer(array $server): array
    {
        $headers = [];
        foreach (['webhook-id', 'webhook-timestamp', 'webhook-signature'] as $name) {
            $key = 'HTTP_' . strtoupper(str_replace('-', '_', $name));
            if (isset($server[$key])) {
                $headers[$name] = $server[$key];
            }
        }
        return $headers;
    }

    private function post(string $path, array $body, array $headers = []): array
    {
        $payload = json_encode($body + ['merchantid' => $this->merchantId, 'password' => $this->password], JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
        $headers = array_merge(['Content-Type: application/json', 'Accept: application/json', 'User-Agent: thaiqr-gateway-php/' . self::VERSION], $headers);
        [$status, $responseHeaders, $text] = $this->transport === 'curl'
            ? $this->sendCurl($this->baseUrl . $path, $headers, $payload)
            : $this->sendStream($this->baseUrl . $path, $headers, $payload);
        $parsed = json_decode($text, true);
        $parsed = is_array($parsed) ? $parsed : null;
        if ($parsed !== null && ($parsed['type'] ?? null) === 'valid' && $status >= 200 && $status < 300) {
            return $parsed;
        }
        $field = static fn (string $name): ?string => isset($parsed[$name]) && is_string($parsed[$name]) ? $parsed[$name] : null;
        throw new GatewayException($status, $field('responsecode'), $field('error_code_tag'), $field('error_text'), $responseHeaders['x-request-id'] ?? null, $parsed);
    }

    /** @return array{int, array<string,string>, string} */
    private function sendCurl(string $url, array $headers, string $payload): array
    {
        $responseHeaders = [];
        $curl = curl_init($url);
        curl_setopt_array($curl, [
            CURLOPT_POST => true,
            CURLOPT_POSTFIELDS => $payload,
            CURLOPT_HTTPHEADER => $headers,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_FOLLOWLOCATION => false,
            CURLOPT_TIMEOUT => $this->timeoutSeconds,
            CURLOPT_HEADERFUNCTION => static function ($curl, string $line) use (&$responseHeaders): int {
                $parts = explode(':', $line, 2);
                if (count($parts) === 2) {
                    $responseHeaders[strtolower(trim($parts[0]))] = trim($parts[1]);
                }
                return strlen($line);
            },
        ]);
        $text = curl_exec($curl);
        if ($text === false) {
            $error = curl_error($curl);
            curl_close($curl);
            throw new \RuntimeException("Could not reach the gateway: {$error}");
        }
        $status = (int) curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
        curl_close($curl);
        return [$status, $responseHeaders, (string) $text];
    }

    /** @return array{int, array<string,string>, string} */
    private function sendStream(string $url, array $headers, string $payload): array
    {
        $context = stream_context_create(['http' => [
            'method' => 'POST',
            'header' => implode("\r\n", $headers),
            'content' => $payload,
            'timeout' => $this->timeoutSeconds,
            'ignore_errors' => true, // read the JSON body of 4xx/5xx answers too
            'follow_location' => 0,
        ]]);
        $text = @file_get_contents($url, false, $context);
        if ($text === false || !isset($http_response_header)) {
            throw new \RuntimeException('Could not reach the gateway: ' . (error_get_last()['message'] ?? 'unknown error'));
        }
        $status = 0;
        $responseHeaders = [];
        foreach ($http_response_header as $line) {
            if (preg_match('#^HTTP/\S+\s+(\d{3})#', $line, $m)) {
                $status = (int) $m[1];
                $responseHeaders = [];
            } elseif (count($parts = explode(':', $line, 2)) === 2) {
                $responseHeaders[strtolower(trim($parts[0]))] = trim($parts[1]);
            }
        }
        return [$status, $responseHeaders, $text];
    }
}
