// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {
    ChannelConfig,
    ChannelState,
    IDepositCollector,
    PendingWithdrawal,
    ReceiverTotals,
    SignatureCheck,
    TokenCalls,
    VoucherClaim
} from "./BatchSettlementTypes.sol";
import {BatchSettlementDigests} from "./BatchSettlementDigests.sol";
import {IBatchSettlementEvents, SelfMulticall} from "./BatchSettlementEvents.sol";

/// @title X402BatchSettlement
/// @notice The localnet's payment-channel escrow for the x402 `batch-settlement` scheme on EVM,
/// written from the scheme's specification with the function and struct layout the x402 EVM SDK
/// (npm package x402/evm) encodes. Payers deposit into channels through a collector; receivers claim cumulative vouchers
/// in batches (accounting only) and sweep claimed funds with `settle`; the receiver side refunds
/// cooperatively; the payer can always leave through a timed withdrawal.
/// @dev Placed with set-code at the canonical address, so it has no constructor, no immutables and
/// no storage that needs initializing. The reentrancy lock lives in transient storage (EIP-1153).
contract X402BatchSettlement is BatchSettlementDigests, IBatchSettlementEvents, SelfMulticall {
    using TokenCalls for address;

    uint40 public constant MIN_WITHDRAW_DELAY = 15 minutes;
    uint40 public constant MAX_WITHDRAW_DELAY = 30 days;

    mapping(bytes32 channelId => ChannelState) public channels;
    mapping(bytes32 channelId => PendingWithdrawal) public pendingWithdrawals;
    /// @notice The nonce the next `refundWithSignature` must carry; every refund advances it.
    mapping(bytes32 channelId => uint256) public refundNonce;
    mapping(address receiver => mapping(address token => ReceiverTotals)) public receivers;

    bool private transient _locked;

    modifier nonReentrant() {
        if (_locked) revert Reentrancy();
        _locked = true;
        _;
        _locked = false;
    }

    // ---- deposits ----

    /// @notice Adds `amount` to the channel of `config`, pulled from the payer by `collector`
    /// (e.g. the ERC-3009 collector with the payer's receiveWithAuthorization). Anyone may submit.
    function deposit(ChannelConfig calldata config, uint128 amount, address collector, bytes calldata collectorData)
        external
        nonReentrant
    {
        if (amount == 0) revert ZeroAmount();
        _requireValidConfig(config);
        bytes32 channelId = getChannelId(config);
        uint256 before = config.token.balanceOfThis();
        IDepositCollector(collector).collect(config.payer, config.token, amount, channelId, collectorData);
        uint256 received = config.token.balanceOfThis() - before;
        // Only what actually arrived is credited; a collector that moved anything else is refused.
        if (received != amount) revert DepositNotReceived(amount, received);
        ChannelState storage channel = channels[channelId];
        bool opening = channel.balance == 0;
        channel.balance += amount;
        if (opening) emit ChannelCreated(channelId, config);
        emit Deposited(channelId, msg.sender, collector, amount, channel.balance);
    }

    // ---- claims and settlement ----

    /// @notice Claims vouchers as the receiver or receiverAuthorizer of every row (no signature).
    function claim(VoucherClaim[] calldata voucherClaims) external nonReentrant {
        if (voucherClaims.length == 0) revert EmptyClaims();
        for (uint256 i = 0; i < voucherClaims.length; i++) {
            ChannelConfig calldata config = voucherClaims[i].voucher.channel;
            if (msg.sender != config.receiver && msg.sender != config.receiverAuthorizer) revert Unauthorized();
            _claimRow(voucherClaims[i]);
        }
    }

    /// @notice Claims vouchers of many channels at once; anyone may relay it with the common
    /// receiverAuthorizer's EIP-712 ClaimBatch signature over all rows.
    function claimWithSignature(VoucherClaim[] calldata voucherClaims, bytes calldata authorizerSignature)
        external
        nonReentrant
    {
        if (voucherClaims.length == 0) revert EmptyClaims();
        address authorizer = voucherClaims[0].voucher.channel.receiverAuthorizer;
        for (uint256 i = 1; i < voucherClaims.length; i++) {
            if (voucherClaims[i].voucher.channel.receiverAuthorizer != authorizer) revert AuthorizerMismatch();
        }
        if (!SignatureCheck.isValidNow(authorizer, getClaimBatchDigest(voucherClaims), authorizerSignature)) {
            revert InvalidAuthorizerSignature();
        }
        for (uint256 i = 0; i < voucherClaims.length; i++) {
            _claimRow(voucherClaims[i]);
        }
    }

    /// @notice Transfers everything claimed but not yet settled for `receiver` in `token` to the
    /// receiver, in one transfer. Permissionless; nothing to settle is a silent no-op.
    function settle(address receiver, address token) external nonReentrant {
        ReceiverTotals storage totals = receivers[receiver][token];
        uint128 amount = totals.totalClaimed - totals.totalSettled;
        if (amount == 0) return;
        totals.totalSettled = totals.totalClaimed;
        token.safeTransfer(receiver, amount);
        emit Settled(receiver, token, msg.sender, amount);
    }

    // ---- cooperative refunds ----

    /// @notice Returns up to `amount` of unclaimed escrow to the payer; the receiver side only.
    function refund(ChannelConfig calldata config, uint128 amount) external nonReentrant {
        if (msg.sender != config.receiver && msg.sender != config.receiverAuthorizer) revert Unauthorized();
        _refund(config, getChannelId(config), amount);
    }

    /// @notice The same, relayed by anyone with the receiverAuthorizer's EIP-712 Refund signature
    /// for the channel's current refund nonce.
    function refundWithSignature(
        ChannelConfig calldata config,
        uint128 amount,
        uint256 nonce,
        bytes calldata receiverAuthorizerSignature
    ) external nonReentrant {
        bytes32 channelId = getChannelId(config);
        if (nonce != refundNonce[channelId]) revert InvalidRefundNonce(refundNonce[channelId], nonce);
        bytes32 digest = getRefundDigest(channelId, nonce, amount);
        if (!SignatureCheck.isValidNow(config.receiverAuthorizer, digest, receiverAuthorizerSignature)) {
            revert InvalidAuthorizerSignature();
        }
        _refund(config, channelId, amount);
    }

    // ---- timed withdrawal ----

    /// @notice Starts the payer's unilateral exit for `amount` (at most the unclaimed escrow now).
    function initiateWithdraw(ChannelConfig calldata config, uint128 amount) external nonReentrant {
        _requirePayerSide(config);
        if (amount == 0) revert ZeroAmount();
        bytes32 channelId = getChannelId(config);
        PendingWithdrawal storage pending = pendingWithdrawals[channelId];
        if (pending.initiatedAt != 0) revert WithdrawPending();
        uint128 unclaimed = _unclaimed(channels[channelId]);
        if (amount > unclaimed) revert WithdrawExceedsUnclaimed(amount, unclaimed);
        pending.amount = amount;
        pending.initiatedAt = uint40(block.timestamp);
        emit WithdrawInitiated(channelId, amount, block.timestamp + config.withdrawDelay);
    }

    /// @notice Completes the withdrawal once the channel's delay has passed, paying the payer the
    /// pending amount capped at whatever escrow is still unclaimed (claims in the delay win).
    function finalizeWithdraw(ChannelConfig calldata config) external nonReentrant {
        _requirePayerSide(config);
        bytes32 channelId = getChannelId(config);
        PendingWithdrawal memory pending = pendingWithdrawals[channelId];
        if (pending.initiatedAt == 0) revert NoPendingWithdraw();
        uint256 finalizeAfter = uint256(pending.initiatedAt) + config.withdrawDelay;
        if (block.timestamp < finalizeAfter) revert WithdrawDelayNotElapsed(finalizeAfter);
        delete pendingWithdrawals[channelId];
        ChannelState storage channel = channels[channelId];
        uint128 unclaimed = _unclaimed(channel);
        uint128 paid = pending.amount < unclaimed ? pending.amount : unclaimed;
        channel.balance -= paid;
        if (paid > 0) config.token.safeTransfer(config.payer, paid);
        emit WithdrawFinalized(channelId, msg.sender, paid);
        if (paid > 0 && channel.balance == 0) emit ChannelClosed(channelId, config);
    }

    // ---- internals ----

    function _claimRow(VoucherClaim calldata row) private {
        ChannelConfig calldata config = row.voucher.channel;
        bytes32 channelId = getChannelId(config);
        ChannelState storage channel = channels[channelId];
        uint128 newTotal = row.totalClaimed;
        uint128 ceiling = row.voucher.maxClaimableAmount;
        if (newTotal > ceiling) revert ClaimExceedsVoucher(channelId, newTotal, ceiling);
        if (newTotal > channel.balance) revert ClaimExceedsBalance(channelId, newTotal, channel.balance);
        bytes32 digest = getVoucherDigest(channelId, ceiling);
        bool signed = config.payerAuthorizer != address(0)
            ? SignatureCheck.recover(digest, row.signature) == config.payerAuthorizer
            : SignatureCheck.isValidNow(config.payer, digest, row.signature);
        if (!signed) revert InvalidVoucherSignature(channelId);
        uint128 current = channel.totalClaimed;
        // Cumulative: a total at or below what is already claimed adds nothing (a no-op row).
        if (newTotal <= current) return;
        uint128 delta = newTotal - current;
        channel.totalClaimed = newTotal;
        receivers[config.receiver][config.token].totalClaimed += delta;
        emit Claimed(channelId, msg.sender, delta, newTotal);
    }

    /// @dev The nonce advances first, whatever the outcome, so any refund (even one that moves
    /// nothing) invalidates signatures made for the previous nonce.
    function _refund(ChannelConfig calldata config, bytes32 channelId, uint128 amount) private {
        if (amount == 0) revert ZeroAmount();
        uint256 nonce = refundNonce[channelId]++;
        ChannelState storage channel = channels[channelId];
        uint128 unclaimed = _unclaimed(channel);
        uint128 paid = amount < unclaimed ? amount : unclaimed;
        if (paid == 0) return;
        channel.balance -= paid;
        PendingWithdrawal storage pending = pendingWithdrawals[channelId];
        if (pending.initiatedAt != 0) {
            // A refund returns part of what the payer is waiting for: the wait covers only the rest.
            if (paid >= pending.amount) delete pendingWithdrawals[channelId];
            else pending.amount -= paid;
        }
        config.token.safeTransfer(config.payer, paid);
        emit Refunded(channelId, msg.sender, paid, nonce);
        if (channel.balance == 0) emit ChannelClosed(channelId, config);
    }

    function _unclaimed(ChannelState storage channel) private view returns (uint128) {
        return channel.balance - channel.totalClaimed;
    }

    function _requirePayerSide(ChannelConfig calldata config) private view {
        if (msg.sender != config.payer && (config.payerAuthorizer == address(0) || msg.sender != config.payerAuthorizer)) {
            revert Unauthorized();
        }
    }

    function _requireValidConfig(ChannelConfig calldata config) private pure {
        bool valid = config.payer != address(0) && config.receiver != address(0)
            && config.receiverAuthorizer != address(0) && config.token != address(0)
            && config.withdrawDelay >= MIN_WITHDRAW_DELAY && config.withdrawDelay <= MAX_WITHDRAW_DELAY;
        if (!valid) revert InvalidChannelConfig();
    }
}
